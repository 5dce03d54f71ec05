package modelproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkRoute is one model API request (a 4 KiB body, a 4 KiB answer)
// straight to the server against through the proxy's route, which puts
// the key in: the proxy's cost per request, against a model's seconds.
func BenchmarkRoute(b *testing.B) {
	answer := strings.Repeat("x", 4096)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		io.WriteString(w, answer)
	}))
	defer up.Close()
	p, _ := newProxy(b, nil)
	base, ph, err := p.Route(up.URL, map[string]string{"K": "sk-real"})
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("y", 4096)
	for _, bc := range []struct{ name, url string }{{"direct", up.URL}, {"proxy", base}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req, _ := http.NewRequest("POST", bc.url+"/v1/messages", strings.NewReader(body))
				req.Header.Set("x-api-key", ph["K"])
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
