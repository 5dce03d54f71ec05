package modelproxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestAllowed(t *testing.T) {
	allow := []string{"registry.npmjs.org", "proxy.golang.org:443", "*.pythonhosted.org"}
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"registry.npmjs.org:443", true},
		{"REGISTRY.npmjs.org.:80", true},
		{"proxy.golang.org:443", true},
		{"proxy.golang.org:80", false},
		{"files.pythonhosted.org:443", true},
		{"pythonhosted.org:443", false},
		{"evilpythonhosted.org:443", false},
		{"127.0.0.1:8080", false},
		{"registry.npmjs.org", false}, // no port: not a host:port
	} {
		if got := Allowed(allow, tc.host); got != tc.want {
			t.Errorf("Allowed(%q) = %t, want %t", tc.host, got, tc.want)
		}
	}
}

// newProxy serves a proxy on a loopback listener for the test.
func newProxy(t testing.TB, allow []string) (*Proxy, *[]string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var refused []string
	p := New(ln, allow, func(h string) { mu.Lock(); refused = append(refused, h); mu.Unlock() })
	t.Cleanup(func() { p.Close() })
	return p, &refused
}

// The key reaches the upstream in place of the placeholder, wherever the
// CLI puts it (a header, a bearer token, a query), and the path is the
// upstream's base path joined with the request's.
func TestRouteInjectsTheKey(t *testing.T) {
	var got *http.Request
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(r.Context())
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: ok\n\n")
	}))
	defer up.Close()
	p, _ := newProxy(t, nil)
	base, ph, err := p.Route(up.URL+"/v1", map[string]string{"K": "sk-real-1234"})
	if err != nil {
		t.Fatal(err)
	}
	if again, _, _ := p.Route(up.URL+"/v1", map[string]string{"K": "sk-real-1234"}); again != base {
		t.Errorf("the same upstream and keys gave two routes: %s, %s", base, again)
	}
	if other, _, _ := p.Route(up.URL+"/v1", map[string]string{"K": "sk-other"}); other == base {
		t.Errorf("other keys share route %s", base)
	}
	req, _ := http.NewRequest("POST", base+"/responses?key="+url.QueryEscape(ph["K"]), strings.NewReader("{}"))
	req.Header.Set("x-api-key", ph["K"])
	req.Header.Set("Authorization", "Bearer "+ph["K"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "data: ok\n\n" {
		t.Errorf("body %q", body)
	}
	if got == nil {
		t.Fatal("the upstream got nothing")
	}
	if got.URL.Path != "/v1/responses" || got.URL.Query().Get("key") != "sk-real-1234" {
		t.Errorf("upstream got %s", got.URL)
	}
	if got.Header.Get("x-api-key") != "sk-real-1234" || got.Header.Get("Authorization") != "Bearer sk-real-1234" {
		t.Errorf("upstream got headers %v", got.Header)
	}
	if _, err := http.Get(p.URL() + "/m/99/v1/x"); err != nil {
		t.Fatal(err)
	}
}

// A CONNECT or an absolute-URI request to a host the allow-list does not
// name is refused (403), never dialled, and the host is reported for
// each refusal (the caller names it once).
func TestRefusesHostsNotAllowed(t *testing.T) {
	var hits int
	var mu sync.Mutex
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		io.WriteString(w, "reached")
	}))
	defer target.Close()
	host := strings.TrimPrefix(target.URL, "http://")
	p, refused := newProxy(t, []string{"allowed.example"})
	proxyURL, _ := url.Parse(p.URL())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	for range 2 {
		resp, err := client.Get(target.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("absolute-URI request to %s: %s, want 403", host, resp.Status)
		}
	}
	c, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT "+host+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("CONNECT %s: %s, want 403", host, resp.Status)
	}
	if hits != 0 {
		t.Errorf("the refused host was reached %d times", hits)
	}
	if want := []string{host, host, host}; !slices.Equal(*refused, want) {
		t.Errorf("refused reported %q, want %q", *refused, want)
	}
}

// A host the allow-list names is reached through a CONNECT tunnel.
func TestTunnelsToAllowedHosts(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "reached")
	}))
	defer target.Close()
	host := strings.TrimPrefix(target.URL, "http://")
	p, refused := newProxy(t, []string{host})
	c, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT "+host+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "reached" {
		t.Errorf("through the tunnel: %q", body)
	}
	if len(*refused) != 0 {
		t.Errorf("refused %q", *refused)
	}
}
