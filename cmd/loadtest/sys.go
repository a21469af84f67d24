package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func runtimeNumCPU() int { return runtime.NumCPU() }

func notifyInterrupt(c chan os.Signal) { signal.Notify(c, os.Interrupt, syscall.SIGTERM) }

// residentKB reads a process's VmRSS from /proc (Linux).
func residentKB(pid int) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS for process %d", pid)
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat, USER_HZ, which
// Linux fixes at 100 on every architecture it exports it to user space.
const userHZ = 100

// processCPU reads the user and system CPU time a process has used so far
// from /proc (Linux).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields are counted from the last closing parenthesis (utime is
	// the 14th field of the line, stime the 15th).
	end := strings.LastIndexByte(string(b), ')')
	fields := strings.Fields(string(b)[end+1:])
	if end < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("process %d: unexpected /proc stat line", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("process %d: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// ownCPU reads the user and system CPU time this process has used so far.
func ownCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// cpuMeter measures the CPU time a process spends in one phase of the load.
type cpuMeter struct {
	read  func() (time.Duration, error)
	from  time.Duration
	began time.Time
}

// meterCPU starts measuring the CPU time read reports.
func meterCPU(read func() (time.Duration, error)) (*cpuMeter, error) {
	from, err := read()
	return &cpuMeter{read: read, from: from, began: time.Now()}, err
}

// per returns the CPU time spent since the meter started for each of the
// rate a second of operations the phase completed.
func (m *cpuMeter) per(rate float64) (time.Duration, error) {
	now, err := m.read()
	if err != nil || rate <= 0 {
		return 0, err
	}
	ops := rate * time.Since(m.began).Seconds()
	return time.Duration(float64(now-m.from) / ops), nil
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
