package analyze

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/todoaudit/todo"
)

// Record is one document of a workload, reduced to what partitioning needs.
type Record struct {
	// Type is the document's discriminator: todo.TypeTodo, TypeVersion or
	// TypeSequence.
	Type string
	// TodoID is the todo a version document belongs to (exports only).
	TodoID string
	// UserID, Category and PartitionKey are the properties the schemes key
	// on; PartitionKey is set only on documents of a synthetic store.
	UserID, Category, PartitionKey string
	// Bytes is the stored size of the document.
	Bytes int64
	// Writes is the number of writes a todo has had (its version: create
	// plus updates); 0 for other documents.
	Writes int64
	// VersionBytes is the size of the version document each write of a
	// todo stores with it.
	VersionBytes int64
	// Versions is the number of retained version documents of a todo that
	// are modelled rather than present as records (generated workloads).
	Versions int64
	// Times are the times of a generated todo's writes, oldest first: its
	// create, then its updates, each an audit record. An export does not
	// have them (its todos hold the last write's time only).
	Times []time.Time
}

// versionOverhead is what a version document adds to the todo it copies:
// its own id, type, todoId, userId, category, partitionKey, version,
// operation, actor, at and ttl (about 310 bytes in documents the service
// writes, measured on generated exports).
const versionOverhead = 310

// sequenceBytes is the size of a synthetic sequence document.
const sequenceBytes = 160

// LineError is a line of an input that could not be used.
type LineError struct {
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// ReadOptions tune ReadJSONL.
type ReadOptions struct {
	// Strict refuses the input at its first malformed line; otherwise
	// malformed lines are skipped and reported.
	Strict bool
	// DocOverhead is added to each line's length: the system properties and
	// index space a line does not show.
	DocOverhead int64
	// MaxLineBytes is the longest line accepted (a document is at most
	// 2 MB); 4 MiB when zero.
	MaxLineBytes int
	// Progress, when set, is told the bytes read so far.
	Progress func(bytesRead int64)
}

// ReadResult says what ReadJSONL read.
type ReadResult struct {
	Lines     int64       `json:"lines"`
	Records   int64       `json:"records"`
	Malformed int64       `json:"malformed"`
	Errors    []LineError `json:"errors,omitempty"` // the first MaxReportedErrors
}

// MaxReportedErrors is how many malformed lines are listed; all are counted.
const MaxReportedErrors = 20

// exported is the part of a todo container document the analyzer reads.
type exported struct {
	ID           *string `json:"id"`
	Type         *string `json:"type"`
	UserID       *string `json:"userId"`
	Category     *string `json:"category"`
	PartitionKey *string `json:"partitionKey"`
	TodoID       *string `json:"todoId"`
	Version      *int64  `json:"version"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// parseLine turns one exported document into a record, or says why not.
func parseLine(line []byte, overhead int64) (Record, string) {
	var d exported
	if err := json.Unmarshal(line, &d); err != nil {
		return Record{}, "not a JSON object: " + err.Error()
	}
	if d.Type == nil {
		return Record{}, `no "type" discriminator`
	}
	if str(d.ID) == "" {
		return Record{}, `no "id"`
	}
	r := Record{Type: *d.Type, UserID: str(d.UserID), Category: str(d.Category), PartitionKey: str(d.PartitionKey),
		TodoID: str(d.TodoID), Bytes: int64(len(line)) + overhead}
	switch r.Type {
	case todo.TypeTodo:
		if r.UserID == "" || r.Category == "" {
			return Record{}, `todo without "userId" or "category"`
		}
		if d.Version == nil || *d.Version < 1 {
			return Record{}, `todo without a positive "version"`
		}
		r.Writes = *d.Version
		r.TodoID = str(d.ID)
		r.VersionBytes = r.Bytes + versionOverhead
	case todo.TypeVersion:
		if r.UserID == "" || r.Category == "" || r.TodoID == "" {
			return Record{}, `version document without "userId", "category" or "todoId"`
		}
	case todo.TypeSequence:
		if r.UserID == "" || r.PartitionKey == "" {
			return Record{}, `sequence document without "userId" or "partitionKey"`
		}
	default:
		return Record{}, fmt.Sprintf("unknown document type %q", r.Type)
	}
	return r, ""
}

// ReadJSONL streams a JSON Lines export of the todo container into emit,
// one document per line; blank lines are ignored. A malformed line is
// reported with its line number and skipped, or, with Strict, ends the read
// with a LineError.
func ReadJSONL(in io.Reader, o ReadOptions, emit func(*Record)) (ReadResult, error) {
	max := o.MaxLineBytes
	if max <= 0 {
		max = 4 << 20
	}
	br := bufio.NewReaderSize(in, 1<<20)
	var res ReadResult
	var read int64
	var long []byte // a line longer than the reader's buffer
	tooLong := false
	var rec Record
	for {
		chunk, err := br.ReadSlice('\n')
		read += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > max {
				tooLong, long = true, long[:0]
			} else if !tooLong {
				long = append(long, chunk...)
			}
			continue
		}
		line := chunk
		if len(long) > 0 || tooLong {
			long = append(long, chunk...)
			line = long
		}
		if len(line) > 0 || tooLong {
			res.Lines++
			bad := ""
			if tooLong || len(line) > max {
				bad = fmt.Sprintf("longer than %d bytes", max)
			} else {
				bad = handleLine(line, o.DocOverhead, &rec)
			}
			if bad != "" {
				res.Malformed++
				le := LineError{Line: res.Lines, Reason: bad}
				if o.Strict {
					return res, le
				}
				if len(res.Errors) < MaxReportedErrors {
					res.Errors = append(res.Errors, le)
				}
			} else if rec.Type != "" {
				res.Records++
				emit(&rec)
			}
		}
		long, tooLong = long[:0], false
		if o.Progress != nil {
			o.Progress(read)
		}
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
	}
}

// handleLine parses one line into rec; rec.Type is "" for a blank line.
func handleLine(line []byte, overhead int64, rec *Record) string {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		rec.Type = ""
		return ""
	}
	r, bad := parseLine(line, overhead)
	if bad != "" {
		return bad
	}
	*rec = r
	return ""
}
