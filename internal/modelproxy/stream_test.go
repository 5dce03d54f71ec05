package modelproxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestStreamedAnswersArriveWhole: a model API reads the whole request
// (a CLI's conversation, tens of kilobytes) and streams its answer; every
// answer reaches the CLI whole. Without full duplex the proxy's server
// discarded and closed the request body when the answer's header went
// out, while its transport still read that body for stray bytes: the
// transport took the "invalid Read on closed Body" for a broken request,
// closed the upstream connection mid-answer, and the CLI saw "stream
// disconnected before completion" (Codex, which the end-to-end test runs
// without retries, failed a rotation so under load).
func TestStreamedAnswersArriveWhole(t *testing.T) {
	const events = 20
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for i := range events {
			fmt.Fprintf(w, "event: delta\ndata: {\"n\":%d}\n\n", i)
			w.(http.Flusher).Flush()
		}
	}))
	defer up.Close()
	p, _ := newProxy(t, nil)
	base, _, err := p.Route(up.URL+"/v1", map[string]string{"KEY": "sk-test-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	conversation := bytes.Repeat([]byte("x"), 40<<10)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		broken []string
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{}}
			for range 100 {
				resp, err := c.Post(base+"/responses", "application/json", bytes.NewReader(conversation))
				if err != nil {
					mu.Lock()
					broken = append(broken, err.Error())
					mu.Unlock()
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if n := strings.Count(string(b), "event: delta"); err != nil || n != events {
					mu.Lock()
					broken = append(broken, fmt.Sprintf("%d of %d events: %v", n, events, err))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(broken) > 0 {
		t.Errorf("%d of 800 answers broke, e.g. %s", len(broken), broken[0])
	}
}
