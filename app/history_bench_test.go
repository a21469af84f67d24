package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkHistoryPage is GET of the first page of 20 of a 21-version
// history through the standalone handler in-process, its audit and log
// on, from one client: what a history view asks for, every record checked
// against its hash and written with its changes, and with its commitments
// (form=1) or the seed they follow from (form=2); B/answer is the size
// of the answer. Run it with -cpuprofile to see where a read of the audit
// goes.
func BenchmarkHistoryPage(b *testing.B) {
	a := launch(b, map[string]string{"DATA_DIR": b.TempDir(), "AUTH_MODE": "dev"}, nil)
	base := "http://" + a.Addr()
	c := &http.Client{}
	id := createTodo(b, c, base)
	for n := range 20 {
		req, _ := http.NewRequest(http.MethodPut, base+"/api/todos/"+id, strings.NewReader(fmt.Sprintf(`{"category":"Grocery","title":"update %d"}`, n)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	url := base + "/api/todos/" + id + "/history?pageSize=20"
	deadline := time.Now().Add(10 * time.Second)
	for {
		body, err := get(c, url)
		if err != nil {
			b.Fatal(err)
		}
		var p struct{ Items []json.RawMessage }
		if err := json.Unmarshal(body, &p); err != nil {
			b.Fatal(err)
		}
		if len(p.Items) == 20 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the history holds %d versions after 10 s", len(p.Items))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, form := range []string{"1", "2"} {
		b.Run("form="+form, func(b *testing.B) {
			var body []byte
			var err error
			for range b.N {
				if body, err = get(c, url+"&form="+form); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(body)), "B/answer")
		})
	}
}

func get(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return body, err
}
