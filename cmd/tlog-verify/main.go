// Command tlog-verify checks what the handler's transparency log publishes,
// offline, with nothing but the log's public key: a checkpoint's signature
// (and, given its tiles, its tree), a version's inclusion proof, the
// consistency of a checkpoint saved earlier with a newer one, a whole
// history answer, and an export with its manifest. Inputs are files, or
// http(s) URLs fetched with the headers given. It exits 0 when everything
// verifies, 1 when something does not, and 2 on a usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	sumdb "golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/transparency"
)

const usage = `usage: tlog-verify [-key KEY] [-policy FILE] [-state FILE] [-log URL]
                   [-header 'Name: value']... COMMAND ARGS

KEY is the log's verifier key (name+hash+keydata, as GET /api/log/key
answers) or @FILE holding it. ARGS are files or http(s) URLs.

With -policy (a C2SP tlog-policy file, as GET /api/log/policy serves it),
a checkpoint is accepted only with the quorum of witness cosignatures it
asks for, and only from a log the policy lists when it lists any: KEY
must be one of them, and may be left out when the policy lists one.

The newest checkpoint accepted of each log is remembered (in -state FILE,
by default tlog-verify/checkpoints.json under the user's configuration
directory), and every checkpoint accepted later must be consistent with
it, proven through the log's consistency route: -log is the log's base
URL (…/api/log), guessed from an input's URL when not given.

  checkpoint CHECKPOINT [TILES]
      verify the checkpoint's signature; with TILES (a directory or the
      base URL of /api/log, holding tile/...), also recompute its tree
      and check every entry of its entry bundles against it (a bundle of
      leaves that name users, which the log serves to its administrators
      only, is counted and skipped without an admin's -H header)
  proof BUNDLE
      verify an inclusion proof bundle (GET /api/todos/{id}/history/proof)
  consistency OLDER NEWER [PROOF]
      verify that NEWER extends OLDER: the same root at the same size, or
      PROOF (GET /api/log/consistency?from=m&to=n) proving it
  history HISTORY [BUNDLE...]
      verify a history answer (GET /api/todos/{id}/history, every page
      concatenated or one page, in either form): each version's chain
      link, and with its bundle, its inclusion in the log; a URL that
      names no form is asked for form 2, whose records show their seeds
  export EXPORT [TILES]
      verify an export (NDJSON or CSV, GET .../export) and its manifest:
      its digest, count and first and last records, each record's hash
      and links, the manifest's checkpoint, and with TILES, every record's
      inclusion under that checkpoint
  monitor [-every DURATION] [-count N] [-exec COMMAND] LOG
      poll LOG (the base URL of /api/log): check each new checkpoint
      against the last and against each witness's monitoring route
      (with -policy), and on any inconsistency run COMMAND (with the
      problem in $TLOG_VERIFY_PROBLEM) and exit 1
`

// maxInput bounds what is read of one input.
const maxInput = 64 << 20

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

// verifier holds what every command needs: the key and how to read
// inputs, and the policy and memory a checkpoint is accepted with.
type verifier struct {
	v       note.Verifier
	headers headers
	client  *http.Client
	policy  *transparency.Policy
	mem     *memory
	logURL  string
	// remember, set by accept, remembers the checkpoint it accepted once
	// the command succeeds.
	remember func() error
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tlog-verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	key := fs.String("key", "", "the log's verifier key, or @FILE")
	vr := &verifier{client: &http.Client{Timeout: 30 * time.Second}}
	fs.Var(&vr.headers, "header", "a header sent with every http(s) request, 'Name: value'")
	policyFile := fs.String("policy", "", "a tlog-policy file: accept checkpoints only with its witness quorum")
	stateFile := fs.String("state", "", "the file of the checkpoints remembered, by default under the user's configuration directory")
	fs.StringVar(&vr.logURL, "log", "", "the log's base URL (…/api/log), for consistency proofs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := vr.configure(*policyFile, *stateFile); err != nil {
		fmt.Fprintln(stderr, "tlog-verify:", err)
		return 2
	}
	rest := fs.Args()
	k := *key
	if k == "" && vr.policy != nil && len(vr.policy.Logs) == 1 {
		k = vr.policy.Logs[0]
	}
	if k == "" || len(rest) == 0 {
		fs.Usage()
		return 2
	}
	if name, ok := strings.CutPrefix(k, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(stderr, "tlog-verify:", err)
			return 2
		}
		k = string(b)
	}
	v, err := transparency.NewVerifier(k)
	if err != nil {
		fmt.Fprintln(stderr, "tlog-verify:", err)
		return 2
	}
	if vr.policy != nil && !vr.policy.ListsLog(k) {
		fmt.Fprintf(stderr, "tlog-verify: the log key %s is not one of the logs -policy lists\n", v.Name())
		return 2
	}
	vr.v = v
	cmd, args := rest[0], rest[1:]
	var out string
	switch {
	case cmd == "checkpoint" && (len(args) == 1 || len(args) == 2):
		out, err = vr.checkpoint(args)
	case cmd == "proof" && len(args) == 1:
		out, err = vr.proof(args[0])
	case cmd == "consistency" && (len(args) == 2 || len(args) == 3):
		out, err = vr.consistency(args)
	case cmd == "history" && len(args) >= 1:
		out, err = vr.history(args[0], args[1:])
	case cmd == "export" && (len(args) == 1 || len(args) == 2):
		out, err = vr.export(args)
	case cmd == "monitor":
		return vr.monitor(args, stdout, stderr)
	default:
		fs.Usage()
		return 2
	}
	if err == nil && vr.remember != nil {
		err = vr.remember()
	}
	if err != nil {
		fmt.Fprintln(stderr, "tlog-verify: FAILED:", err)
		return 1
	}
	fmt.Fprintln(stdout, out)
	return 0
}

// configure reads the policy and the memory of checkpoints.
func (vr *verifier) configure(policyFile, stateFile string) error {
	if policyFile != "" {
		b, err := os.ReadFile(policyFile)
		if err == nil {
			vr.policy, err = transparency.ParsePolicy(b)
		}
		if err != nil {
			return fmt.Errorf("-policy: %w", err)
		}
	}
	if stateFile == "" {
		var err error
		if stateFile, err = defaultMemoryPath(); err != nil {
			return err
		}
	}
	m, err := loadMemory(stateFile)
	if err != nil {
		return fmt.Errorf("-state: %w", err)
	}
	vr.mem = m
	return nil
}

// base is the log's base URL for an input read from src.
func (vr *verifier) base(src string) string {
	if vr.logURL != "" {
		return vr.logURL
	}
	return logBaseOf(src)
}

// with appends what accept said of a checkpoint to a command's line.
func with(line, said string) string {
	if said == "" {
		return line
	}
	return line + "; " + said
}

func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

// read reads a file or fetches a URL.
func (vr *verifier) read(src string) ([]byte, error) {
	r, err := vr.open(src)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r, src)
}

// open opens a file or starts fetching a URL, for inputs read as a stream.
func (vr *verifier) open(src string) (io.ReadCloser, error) {
	if !isURL(src) {
		return os.Open(src)
	}
	req, err := http.NewRequest(http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	for _, h := range vr.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return nil, fmt.Errorf("header %q is not Name: value", h)
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	resp, err := vr.client.Do(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.Body, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		resp.Body.Close()
		if strings.Contains(src, "/tile/entries/") {
			return nil, fmt.Errorf("GET %s: %s: %w", src, resp.Status, transparency.ErrWithheld)
		}
	}
	resp.Body.Close()
	return nil, fmt.Errorf("GET %s: %s", src, resp.Status)
}

func readAll(r io.Reader, src string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err == nil && len(b) > maxInput {
		err = fmt.Errorf("%s is larger than %d bytes", src, maxInput)
	}
	return b, err
}

func (vr *verifier) checkpoint(args []string) (string, error) {
	msg, err := vr.read(args[0])
	if err != nil {
		return "", err
	}
	c, said, err := vr.accept(msg, vr.base(args[0]))
	if err != nil {
		return "", err
	}
	if len(args) == 1 {
		return with("checkpoint verified: "+c.String(), said), nil
	}
	if err := transparency.TreeFromTiles(c, vr.tiles(args[1])); err != nil {
		return "", err
	}
	n, withheld, err := transparency.VerifyBundles(c, vr.tiles(args[1]))
	if err != nil {
		return "", err
	}
	out := fmt.Sprintf("checkpoint, its tiles and the %d entries of its entry bundles verified: %s", n, c)
	if withheld > 0 {
		out = fmt.Sprintf("checkpoint, its tiles and the %d entries of its entry bundles verified, %d entries in bundles served to the log's administrators only not read (their leaves name users; the tiles prove the tree without them): %s",
			n, withheld, c)
	}
	return with(out, said), nil
}

// tiles reads tiles from base: a directory holding tile/..., or the base
// URL of /api/log.
func (vr *verifier) tiles(base string) transparency.TileFetcher {
	return func(p string) ([]byte, error) {
		if isURL(base) {
			u, err := url.JoinPath(base, p)
			if err != nil {
				return nil, err
			}
			return vr.read(u)
		}
		return vr.read(filepath.Join(base, filepath.FromSlash(p)))
	}
}

// export verifies an export, read as a stream: its size is not bounded by
// what is read of other inputs.
func (vr *verifier) export(args []string) (string, error) {
	r, err := vr.open(args[0])
	if err != nil {
		return "", err
	}
	defer r.Close()
	var tiles sumdb.TileReader
	if len(args) == 2 {
		tiles = vr.tiles(args[1])
	}
	rep, err := export.Verify(r, vr.v, tiles)
	if err != nil {
		return "", err
	}
	m := rep.Manifest
	_, said, err := vr.accept([]byte(*m.LogCheckpoint), vr.base(args[len(args)-1]))
	if err != nil {
		return "", fmt.Errorf("the manifest's checkpoint: %w", err)
	}
	return with(fmt.Sprintf("export verified: %d records (%s, sha256 %s), %d links between versions, %d fields erased in %d records (checked by digest), %d erasure entries, every version in the log under %s",
		m.Count, m.Format, m.SHA256, rep.Links, rep.ErasedFields, rep.ErasedRecords, rep.Erasures, rep.Checkpoint), said), nil
}

func (vr *verifier) bundle(src string) (transparency.ProofBundle, error) {
	b, err := vr.read(src)
	if err != nil {
		return transparency.ProofBundle{}, err
	}
	p, err := transparency.ParseProofBundle(b)
	if err != nil {
		return p, fmt.Errorf("%s: %w", src, err)
	}
	return p, nil
}

func (vr *verifier) proof(src string) (string, error) {
	p, err := vr.bundle(src)
	if err != nil {
		return "", err
	}
	c, leaf, err := p.Verify(vr.v)
	if err != nil {
		return "", err
	}
	_, said, err := vr.accept([]byte(p.Checkpoint), vr.base(src))
	if err != nil {
		return "", err
	}
	return with(fmt.Sprintf("included: version %d of %s %q of %q (hash %s) is leaf %d of %s",
		leaf.Version, leaf.EntityType, leaf.ID, leaf.Owner, leaf.Hash, p.Index, c), said), nil
}

func (vr *verifier) consistency(args []string) (string, error) {
	older, err := vr.read(args[0])
	if err != nil {
		return "", err
	}
	newer, err := vr.read(args[1])
	if err != nil {
		return "", err
	}
	var proof transparency.ConsistencyProof
	if len(args) == 3 {
		b, err := vr.read(args[2])
		if err != nil {
			return "", err
		}
		if proof, err = transparency.ParseConsistencyProof(b); err != nil {
			return "", err
		}
	}
	a, b, err := transparency.VerifyConsistency(older, newer, proof.Proof, vr.v)
	if err != nil {
		return "", err
	}
	if a.Size != b.Size && (proof.From != a.Size || proof.To != b.Size) {
		return "", fmt.Errorf("the proof is from %d to %d, the checkpoints are of sizes %d and %d", proof.From, proof.To, a.Size, b.Size)
	}
	return fmt.Sprintf("consistent: %s extends %s", b, a), nil
}

func (vr *verifier) history(src string, bundleSrcs []string) (string, error) {
	src = seedForm(src)
	b, err := vr.read(src)
	if err != nil {
		return "", err
	}
	var bundles []transparency.ProofBundle
	for _, s := range bundleSrcs {
		p, err := vr.bundle(s)
		if err != nil {
			return "", err
		}
		bundles = append(bundles, p)
	}
	versions, n, err := transparency.VerifyHistoryAnswer(b, bundles, vr.v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", src, err)
	}
	said := ""
	for i, b := range bundles {
		if _, said, err = vr.accept([]byte(b.Checkpoint), vr.base(bundleSrcs[i])); err != nil {
			return "", fmt.Errorf("%s: %w", bundleSrcs[i], err)
		}
	}
	return with(fmt.Sprintf("history verified: %d versions chained, %d of them proven in the log", versions, n), said), nil
}

// seedForm is the URL of a history answer that names no form with the
// second form asked for (export.FormSeeds): a record stored with its seed
// shows it in place of its commitments, a smaller answer that verifies
// the same. A file, or a URL that names a form, is left as it is.
func seedForm(src string) string {
	u, err := url.Parse(src)
	if !isURL(src) || err != nil || u.Query().Has("form") {
		return src
	}
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += "form=" + strconv.Itoa(export.FormSeeds)
	return u.String()
}
