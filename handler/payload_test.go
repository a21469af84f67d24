package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// startHosted runs the handler as the Functions host runs it (with
// FUNCTIONS_CUSTOMHANDLER_PORT, whose socket the test binds and hands
// over) and waits until /api/health answers 200.
func startHosted(t *testing.T, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(handlerBinary(t))
	addr := inherit(t, cmd)
	_, port, _ := net.SplitHostPort(addr)
	cmd.Env = append(append(cmd.Env, "PATH="+os.Getenv("PATH"), "FUNCTIONS_CUSTOMHANDLER_PORT="+port, "AUTH_MODE=single",
		"DATA_DIR="+t.TempDir(), "LOG_LEVEL=warn"), env...)
	p := &proc{cmd: cmd, addr: addr, stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if !answers200(p.url("/api/health")) {
		t.Fatalf("handler did not become healthy; stderr: %s", p.stderr)
	}
	return p
}

// peakRSS is the process's peak resident memory (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skip("no /proc here")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// invocation streams a trigger invocation whose documents string is n
// bytes long, chunked, as the host sends it, without holding it in memory.
func invocation(n int64) io.Reader {
	return io.MultiReader(strings.NewReader(`{"Data":{"documents":"`),
		io.LimitReader(repeat('x'), n), strings.NewReader(`"},"Metadata":{}}`))
}

type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// Four 64 MiB invocations at once, over the 16 MiB default limit, get 413
// and keep the handler's memory within a small multiple of the limit.
func TestOversizedPayloadMemory(t *testing.T) {
	p := startHosted(t)
	const limit, size = 16 << 20, 64 << 20
	before := peakRSS(t, p.cmd.Process.Pid)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(p.url("/AuditTrigger"), "application/json", invocation(size))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 413 {
				t.Errorf("64 MiB invocation: %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	peak := peakRSS(t, p.cmd.Process.Pid)
	t.Logf("peak RSS %d MB before, %d MB after four 64 MiB invocations (limit %d MiB)", before>>20, peak>>20, limit>>20)
	if peak > before+6*limit {
		t.Fatalf("peak RSS %d MB: more than six times the %d MiB limit above the %d MB before", peak>>20, limit>>20, before>>20)
	}
}
