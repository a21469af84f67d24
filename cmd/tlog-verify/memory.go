package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/todoaudit/todo/transparency"
)

// memory is the newest checkpoint tlog-verify accepted of each log, by
// the log's verifier key, kept in a file between runs: every checkpoint
// accepted later must be consistent with it, so a log that shows this
// user another tree than before is caught even when each tree is
// consistent in itself. The file is JSON, {"checkpoints": {"<verifier
// key>": "<checkpoint note>"}}, written whole to a temporary file and
// renamed over the old one.
type memory struct {
	path  string
	Notes map[string]string `json:"checkpoints"`
}

// defaultMemoryPath is the memory's file under the user's configuration
// directory.
func defaultMemoryPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration directory to remember checkpoints in (give -state FILE): %w", err)
	}
	return filepath.Join(dir, "tlog-verify", "checkpoints.json"), nil
}

func loadMemory(path string) (*memory, error) {
	m := &memory{path: path, Notes: map[string]string{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s is not tlog-verify's state: %w", path, err)
	}
	if m.Notes == nil {
		m.Notes = map[string]string{}
	}
	return m, nil
}

func (m *memory) save() error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return err
	}
	tmp := m.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, m.path)
}

// accept checks a checkpoint as every command does before relying on it:
// its signature, its consistency with the checkpoint remembered of the
// log (proven through the log's consistency route under logBase) and the
// quorum of the policy, when one is given. Consistency comes before the
// quorum: a tree the witnesses refused lacks the quorum too, and it must
// still be reported as the fork it is. It returns the checkpoint and a
// line saying who cosigned it; the newer of the two is remembered once
// the command succeeds.
func (vr *verifier) accept(msg []byte, logBase string) (transparency.Checkpoint, string, error) {
	c, err := transparency.OpenCheckpoint(msg, vr.v)
	if err != nil {
		return c, "", err
	}
	id := vr.v.Name() + "+" + strconv.FormatUint(uint64(vr.v.KeyHash()), 16)
	old, remembered := "", false
	if vr.mem != nil {
		old, remembered = vr.mem.Notes[id]
	}
	if remembered {
		if err := vr.consistentWith([]byte(old), msg, logBase); err != nil {
			return c, "", err
		}
	}
	var said string
	if vr.policy != nil {
		signed, err := vr.policy.Check(msg)
		if err != nil {
			return c, "", err
		}
		said = "cosigned by"
		for _, s := range signed {
			said += fmt.Sprintf(" %s (%s)", s.Witness, s.Time.Format("2006-01-02T15:04:05Z"))
		}
		if len(signed) == 0 {
			said = "no cosignature needed by the policy"
		}
	}
	if vr.mem == nil {
		return c, said, nil
	}
	if remembered {
		if prev, err := transparency.OpenCheckpoint([]byte(old), vr.v); err == nil && prev.Size >= c.Size {
			return c, said, nil
		}
	}
	// The checkpoints the command accepts after this one are checked
	// against it; the file is written once the command succeeds.
	vr.mem.Notes[id] = string(msg)
	vr.remember = vr.mem.save
	return c, said, nil
}

// consistentWith proves that the checkpoints a and b, of one log, are of
// one tree: the same root at the same size, or a consistency proof from
// the smaller to the larger fetched from logBase.
func (vr *verifier) consistentWith(a, b []byte, logBase string) error {
	ca, err := transparency.OpenCheckpoint(a, vr.v)
	if err != nil {
		return fmt.Errorf("the remembered checkpoint: %w", err)
	}
	cb, err := transparency.OpenCheckpoint(b, vr.v)
	if err != nil {
		return err
	}
	if ca.Size > cb.Size {
		a, b, ca, cb = b, a, cb, ca
	}
	var proof transparency.ConsistencyProof
	if ca.Size != cb.Size && ca.Size > 0 {
		if logBase == "" {
			return fmt.Errorf("cannot prove %s consistent with the remembered %s: give the log's URL with -log", cb, ca)
		}
		raw, err := vr.read(fmt.Sprintf("%s/consistency?from=%d&to=%d", strings.TrimSuffix(logBase, "/"), ca.Size, cb.Size))
		if err != nil {
			return fmt.Errorf("proving consistency with the remembered checkpoint: %w", err)
		}
		if proof, err = transparency.ParseConsistencyProof(raw); err != nil {
			return err
		}
	}
	if _, _, err := transparency.VerifyConsistency(a, b, proof.Proof, vr.v); err != nil {
		return fmt.Errorf("INCONSISTENT with the checkpoint remembered (%s): %w", ca, err)
	}
	return nil
}

// logBaseOf guesses the log's base URL (…/api/log) from the URL an input
// came from, "" for a file.
func logBaseOf(src string) string {
	u, err := url.Parse(src)
	if err != nil || !isURL(src) {
		return ""
	}
	if i := strings.Index(u.Path, "/api/"); i >= 0 {
		u.Path, u.RawQuery = u.Path[:i]+"/api/log", ""
		return u.String()
	}
	return ""
}
