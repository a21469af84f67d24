//go:build !linux

package cosmos

import (
	"os/exec"
	"syscall"
)

func serverProcAttr() *syscall.SysProcAttr { return nil }

func killServer(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
