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
