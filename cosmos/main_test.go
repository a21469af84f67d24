package cosmos

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The wire tests talk to a Cosmos-protocol server: the one at
// COSMOS_TEST_ENDPOINT (an @vercel/cosmosdb-server started by hand), or else
// one that TestMain starts from the module's node_modules (npm ci) on a free
// port and stops afterwards. Without either they skip, saying why.
var (
	wireEndpoint string
	wireSkip     string
)

const serverModule = "node_modules/@vercel/cosmosdb-server/lib/cli.js"

// emulatorKey is the well-known Cosmos DB emulator key; the server ignores
// keys, but azcosmos needs valid base64.
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	flag.Parse()
	wireEndpoint = os.Getenv("COSMOS_TEST_ENDPOINT")
	if testing.Short() {
		wireEndpoint, wireSkip = "", "-short: the Cosmos DB wire tests need a Cosmos-protocol server"
		return m.Run()
	}
	if wireEndpoint == "" {
		stop, err := startServer()
		if err != nil {
			wireSkip = "no Cosmos-protocol server: " + err.Error()
		} else {
			defer stop()
		}
	}
	return m.Run()
}

// wire returns the server's endpoint, or skips the test.
func wire(t testing.TB) string {
	t.Helper()
	if wireEndpoint == "" {
		t.Skip(wireSkip)
	}
	return wireEndpoint
}

// moduleRoot finds the directory holding go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the module root (go.mod) holding node_modules; set COSMOS_TEST_ENDPOINT")
		}
		dir = parent
	}
}

// startServer starts @vercel/cosmosdb-server over plain HTTP on a port the
// kernel picks, in its own process group, and waits for its ready line.
func startServer() (stop func(), err error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	cli := filepath.Join(root, serverModule)
	if _, err := os.Stat(cli); err != nil {
		return nil, fmt.Errorf("%s is missing: run `npm ci` at the module root, or set COSMOS_TEST_ENDPOINT", serverModule)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node is not installed: install Node.js and run `npm ci`, or set COSMOS_TEST_ENDPOINT")
	}
	cmd := exec.Command(node, cli, "--no-ssl", "--host", "127.0.0.1", "-p", "0")
	cmd.Dir = root
	// The server logs a stack trace for every missing-item read (W1 in
	// transport_test.go); keep its stderr out of the test output.
	cmd.Stderr = io.Discard
	cmd.SysProcAttr = serverProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting cosmosdb-server: %w", err)
	}
	stop = func() {
		killServer(cmd)
		_ = cmd.Wait()
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "Ready to accept HTTP connections at "); ok {
				ready <- strings.TrimSpace(addr)
				break
			}
		}
		close(ready)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case addr, ok := <-ready:
		if !ok {
			stop()
			return nil, errors.New("cosmosdb-server exited before it was ready")
		}
		wireEndpoint = "http://" + addr + "/"
		return stop, nil
	case <-time.After(20 * time.Second):
		stop()
		return nil, errors.New("cosmosdb-server was not ready within 20s")
	}
}

var dbCounter atomic.Int64

// uniqueDatabase names a database no other test, run or process uses: the
// server is shared and keeps everything in memory.
func uniqueDatabase() string {
	return fmt.Sprintf("t%d-%d-%d", time.Now().UnixNano(), os.Getpid(), dbCounter.Add(1))
}
