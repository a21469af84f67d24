package apitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/transparency"
)

// seedPattern is a record's seed as the second form shows it.
var seedPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// recordPage is a page of audit records as served, each record as its
// members.
type recordPage struct {
	Items        []map[string]json.RawMessage `json:"items"`
	Continuation *string                      `json:"continuation"`
	Complete     *bool                        `json:"complete"`
}

// readPage reads a page of audit records from path.
func readPage(t *testing.T, c *Client, path string) (recordPage, []byte) {
	t.Helper()
	b := Want(t, c.Do("GET", path, nil), 200).Body
	var p recordPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return p, b
}

// HistoryForms checks the two forms of the pages of audit records: with
// form=2 a history or activity page shows each record stored with its seed
// with it, in place of the commitments it stands for, and is otherwise
// the page form 1 (the default) serves, continued by either form's
// tokens; the seeds give exactly the commitments of form 1; the Go
// verifier takes a history of form 2 and refuses each tampered variant of
// it; a record with an erased field shows its commitments in both forms;
// any other form is a 400. admin must hold the admin role; settle must
// bring the audit up to date.
func HistoryForms(t *testing.T, admin *Client, settle func()) {
	u := admin.As("former")
	id := u.Create("Work", "forms v1")["id"].(string)
	for n := 2; n <= 5; n++ {
		Want(t, u.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": fmt.Sprintf("forms v%d", n), "tags": []string{"t"}}), 200)
	}
	settle()
	history := "/api/todos/" + id + "/history"
	checkFormsAlike(t, u, history+"?pageSize=2")
	// An activity token carries the query's end, now by default: one
	// given makes the two forms' tokens alike.
	until := "&until=" + url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	checkFormsAlike(t, u, "/api/activity?pageSize=3"+until)
	checkFormsAlike(t, admin, "/api/manage/audit?owner=former&pageSize=3"+until)
	checkFormsContinue(t, u, history, 5)
	checkSeededHistoryVerifies(t, u, history)
	for _, q := range []string{"form=0", "form=3", "form=", "form=two", "form=1,2", "form=1&form=2"} {
		for path, as := range map[string]*Client{history + "?" + q: u, "/api/activity?" + q: u, "/api/manage/audit?owner=former&" + q: admin} {
			r := Want(t, as.Do("GET", path, nil), 400)
			if r.Header.Get("Content-Type") != "application/problem+json" || !bytes.Contains(r.Body, []byte("form")) {
				t.Errorf("GET %s: %s %s", path, r.Header.Get("Content-Type"), r.Body)
			}
		}
	}
	Want(t, u.Do("GET", "/api/activity/export?form=2", nil), 400)

	job := Want(t, admin.Do("POST", "/api/manage/erasures", map[string]any{"userId": "former", "reason": "forms"}), 202)
	WaitErasure(t, admin, job.Header.Get("Location"))
	settle()
	for _, path := range []string{history + "?pageSize=2", "/api/activity?pageSize=3" + until} {
		full := Want(t, u.Do("GET", path, nil), 200).Body
		if seeded := Want(t, u.Do("GET", path+"&form=2", nil), 200).Body; !bytes.Equal(seeded, full) || !bytes.Contains(full, []byte(`"erased":["title"`)) {
			t.Errorf("GET %s after an erasure: form 2 serves %d bytes, form 1 %d, which should be alike and show the title erased", path, len(seeded), len(full))
		}
	}
}

// checkFormsAlike walks the pages of path (a query string with pageSize)
// in form 1 and, with the same tokens, in form 2, and checks that they
// differ only in the seed form 2 shows in place of the commitments, which
// it gives exactly.
func checkFormsAlike(t *testing.T, c *Client, path string) {
	t.Helper()
	cont, records := "", 0
	for {
		full, _ := readPage(t, c, path+cont)
		seeded, _ := readPage(t, c, path+"&form=2"+cont)
		if len(full.Items) != len(seeded.Items) || !reflect.DeepEqual(full.Continuation, seeded.Continuation) || !reflect.DeepEqual(full.Complete, seeded.Complete) {
			t.Fatalf("GET %s%s: form 2 serves %d items, continuation %v, complete %v; form 1 %d, %v, %v", path, cont,
				len(seeded.Items), seeded.Continuation, seeded.Complete, len(full.Items), full.Continuation, full.Complete)
		}
		for i, f := range full.Items {
			s := maps.Clone(seeded.Items[i])
			checkSeedGives(t, path, s, f)
			delete(s, "seed")
			s["commitments"] = f["commitments"]
			if !reflect.DeepEqual(s, f) {
				t.Errorf("GET %s: record %d differs beyond its seed:\n%v\n%v", path, i, seeded.Items[i], f)
			}
		}
		records += len(full.Items)
		if full.Continuation == nil {
			break
		}
		cont = "&continuation=" + url.QueryEscape(*full.Continuation)
	}
	if records < 5 {
		t.Fatalf("GET %s: %d records, want 5 or more", path, records)
	}
}

// checkSeedGives checks that a record of form 2 shows its seed and no
// commitments, and that the seed gives exactly the commitments form 1
// shows of it.
func checkSeedGives(t *testing.T, path string, seeded, full map[string]json.RawMessage) {
	t.Helper()
	var seed string
	if err := json.Unmarshal(seeded["seed"], &seed); err != nil || !seedPattern.MatchString(seed) || seeded["commitments"] != nil {
		t.Fatalf("GET %s&form=2: a record shows seed %s and commitments %s", path, seeded["seed"], seeded["commitments"])
	}
	if full["seed"] != nil || full["commitments"] == nil {
		t.Fatalf("GET %s: a record shows seed %s and commitments %.40s", path, full["seed"], full["commitments"])
	}
	b, err := json.Marshal(seeded)
	if err != nil {
		t.Fatal(err)
	}
	var r todo.AuditRecord
	var want todo.Commitments
	if err := errors.Join(json.Unmarshal(b, &r), json.Unmarshal(full["commitments"], &want)); err != nil {
		t.Fatal(err)
	}
	if err := hashchain.ExpandRecord(&r); err != nil || !reflect.DeepEqual(r.Commitments, want) {
		t.Errorf("GET %s: version %d's seed gives other commitments than form 1 shows (%v)", path, r.Version, err)
	}
}

// checkFormsContinue reads the history at path with pages of one,
// alternating the forms, each page continuing the other form's: every
// version is served once, in order, and the history is complete.
func checkFormsContinue(t *testing.T, c *Client, path string, versions int) {
	t.Helper()
	cont := ""
	for n := 1; ; n++ {
		form := []string{"1", "2"}[n%2]
		p, _ := readPage(t, c, path+"?pageSize=1&form="+form+cont)
		if len(p.Items) != 1 || string(p.Items[0]["version"]) != fmt.Sprint(n) || (form == "2") != (p.Items[0]["seed"] != nil) {
			t.Fatalf("page %d in form %s: %v", n, form, p.Items)
		}
		if p.Continuation == nil {
			if n != versions || p.Complete == nil || !*p.Complete {
				t.Fatalf("the last page is page %d (complete %v), want %d", n, p.Complete, versions)
			}
			return
		}
		cont = "&continuation=" + url.QueryEscape(*p.Continuation)
	}
}

// checkSeededHistoryVerifies checks that the Go verifier takes the history
// at path in form 2 and refuses it with a seed altered, an entity
// altered, or a record showing both its seed and its commitments.
func checkSeededHistoryVerifies(t *testing.T, c *Client, path string) {
	t.Helper()
	sp, seeded := readPage(t, c, path+"?form=2")
	full, _ := readPage(t, c, path)
	if n, _, err := transparency.VerifyHistoryAnswer(seeded, nil, nil); err != nil || n != len(full.Items) {
		t.Fatalf("the history in form 2, verified offline: %d versions, %v", n, err)
	}
	var seed string
	if err := json.Unmarshal(sp.Items[0]["seed"], &seed); err != nil {
		t.Fatal(err)
	}
	other := strings.Map(func(r rune) rune {
		if r == '0' {
			return '1'
		}
		return '0'
	}, seed[:1]) + seed[1:]
	member := `"seed":"` + seed + `"`
	for name, tampered := range map[string][]byte{
		"a seed altered":            bytes.Replace(seeded, []byte(member), []byte(`"seed":"`+other+`"`), 1),
		"an entity altered":         bytes.Replace(seeded, []byte(`"title":"forms v1"`), []byte(`"title":"forms v0"`), 1),
		"a seed beside commitments": bytes.Replace(seeded, []byte(member), append([]byte(member+`,"commitments":`), full.Items[0]["commitments"]...), 1),
		"a seed in upper case":      bytes.Replace(seeded, []byte(member), []byte(`"seed":"`+strings.ToUpper(seed)+`"`), 1),
	} {
		if bytes.Equal(tampered, seeded) {
			t.Fatalf("%s: nothing replaced", name)
		}
		if _, _, err := transparency.VerifyHistoryAnswer(tampered, nil, nil); err == nil {
			t.Errorf("the history in form 2 with %s verified offline", name)
		}
	}
}
