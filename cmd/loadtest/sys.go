package main

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

func runtimeNumCPU() int { return runtime.NumCPU() }

func notifyInterrupt(c chan os.Signal) { signal.Notify(c, os.Interrupt, syscall.SIGTERM) }
