package cosmos

import (
	"os/exec"
	"syscall"
)

// serverProcAttr puts the server in its own process group, so that it and
// anything it spawns are killed together, and has the kernel kill it if the
// test binary dies without cleaning up (a test timeout, say).
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func killServer(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
