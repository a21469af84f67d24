package main

import (
	"crypto/sha256"
	"os"
	"testing"
	"time"
)

// A process's CPU time read from /proc is the time it spent: this
// process's agrees with what getrusage says it used, to the tick.
func TestProcessCPUAgreesWithOwn(t *testing.T) {
	before, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ownBefore, err := ownCPU()
	if err != nil {
		t.Fatal(err)
	}
	// Spend 300 ms of CPU, however long the machine takes to give it.
	sum := sha256.Sum256(nil)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		for range 10000 {
			sum = sha256.Sum256(sum[:])
		}
		if now, err := ownCPU(); err != nil || now-ownBefore >= 300*time.Millisecond {
			break
		}
	}
	after, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ownAfter, err := ownCPU()
	if err != nil {
		t.Fatal(err)
	}
	spent, ownSpent := after-before, ownAfter-ownBefore
	if spent < 200*time.Millisecond {
		t.Errorf("/proc says %v of CPU for 300 ms of hashing", spent)
	}
	// Both clocks are sampled by the kernel; /proc's counts whole ticks.
	if d := spent - ownSpent; d > 3*time.Second/userHZ || d < -3*time.Second/userHZ {
		t.Errorf("/proc says %v, getrusage %v", spent, ownSpent)
	}
}

func TestProcessCPUOfNoProcess(t *testing.T) {
	if _, err := processCPU(-1); err == nil {
		t.Error("no error for a process that cannot exist")
	}
}
