// Package modelproxy is the proxy ralph-ci runs for the processes it
// starts (agents, judges, reviewers, verification commands): the only way
// out of their network box. It serves two things on one loopback
// listener:
//
//   - a reverse proxy per model API (a route, see [Proxy.Route]): a CLI
//     gets the route's base URL and a placeholder key; the proxy puts the
//     real key where the placeholder is (in any header or query value, so
//     x-api-key, Authorization: Bearer and ?key= all work) and forwards
//     the request to the upstream base URL, so no boxed process ever holds
//     the key;
//   - an HTTP proxy (HTTP_PROXY, HTTPS_PROXY: CONNECT tunnels and
//     absolute-URI requests) to the hosts the config allows
//     (network.allow) and nowhere else: each refusal is reported, by
//     host, to the refused callback, so that the log can say what to
//     allow (the caller names each host once, and a bounded number).
//
// The upstream requests leave from ralph-ci's own process (and network
// namespace), with its HTTPS_PROXY and CA settings.
package modelproxy

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PlaceholderPrefix starts every placeholder key a boxed process gets.
const PlaceholderPrefix = "ralph-ci-proxy-holds-the-key-"

// Placeholder is what a boxed process gets in the key variable name: the
// proxy replaces it with the key on the way out.
func Placeholder(name string) string { return PlaceholderPrefix + name }

// quiet drops the HTTP server's and the reverse proxy's own log lines:
// ralph-ci's log is JSON or its console format, and a client gone
// mid-answer (an agent stopped by a cap or a timeout) is expected.
var quiet = log.New(io.Discard, "", 0)

// Proxy is the run's proxy; its zero value is not usable: see [New].
type Proxy struct {
	ln    net.Listener
	srv   *http.Server
	allow []string
	// refused is told each refusal's host.
	refused func(host string)
	// upstream carries the requests to the model APIs and the allowed
	// hosts; dial opens CONNECT tunnels.
	upstream http.RoundTripper
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	routes  map[string]*route // by prefix, "/m/1"
	byKey   map[string]string // route identity → prefix
	tunnels sync.WaitGroup
}

// route is one upstream model API and the keys its requests carry.
type route struct {
	prefix   string
	upstream *url.URL
	keys     map[string]string // placeholder → key
	rp       *httputil.ReverseProxy
}

// New serves the proxy on ln (a loopback listener, inside the boxes'
// network namespace where there is one) until Close. allow lists the
// hosts the HTTP proxy reaches ("host", "host:port", "*.domain"); refused,
// when not nil, is told the host of each request it refuses (each one:
// the proxy keeps nothing per host, so a flood of hosts grows nothing
// here).
func New(ln net.Listener, allow []string, refused func(host string)) *Proxy {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	p := &Proxy{
		ln: ln, allow: allow, refused: refused, upstream: t, dial: d.DialContext,
		routes: map[string]*route{}, byKey: map[string]string{},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: time.Minute, ErrorLog: quiet}
	go func() { _ = p.srv.Serve(ln) }()
	return p
}

// URL is the proxy's own address, http://127.0.0.1:PORT: what
// HTTP_PROXY and HTTPS_PROXY name.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Port is the port the proxy listens on.
func (p *Proxy) Port() int {
	if a, ok := p.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Close stops the proxy and ends its tunnels.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.tunnels.Wait()
	return err
}

// Route registers the model API at upstream (a base URL such as
// https://api.anthropic.com) with its keys (variable name → key) and
// returns the base URL a boxed process uses instead, and the placeholder
// of each key (variable name → placeholder). The same upstream and keys
// give the same route.
func (p *Proxy) Route(upstream string, keys map[string]string) (base string, placeholders map[string]string, err error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("model API base URL %q: not an http(s) URL", upstream)
	}
	placeholders = make(map[string]string, len(keys))
	byPlaceholder := make(map[string]string, len(keys))
	id := []string{u.String()}
	for name, key := range keys {
		ph := Placeholder(name)
		placeholders[name], byPlaceholder[ph] = ph, key
		id = append(id, name+"="+key)
	}
	slices.Sort(id)
	identity := strings.Join(id, "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	prefix, ok := p.byKey[identity]
	if !ok {
		prefix = "/m/" + strconv.Itoa(len(p.routes)+1)
		r := &route{prefix: prefix, upstream: u, keys: byPlaceholder}
		r.rp = &httputil.ReverseProxy{
			Rewrite:       r.rewrite,
			Transport:     p.upstream,
			FlushInterval: -1,    // streamed answers (server-sent events) as they come
			ErrorLog:      quiet, // a CLI stopped mid-answer is no news
		}
		p.routes[prefix], p.byKey[identity] = r, prefix
	}
	return p.URL() + prefix, placeholders, nil
}

// rewrite sends the request to the upstream, with the keys in place of
// their placeholders.
func (r *route) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Path = strings.TrimPrefix(out.URL.Path, r.prefix)
	out.URL.RawPath = ""
	pr.SetURL(r.upstream)
	for ph, key := range r.keys {
		for name, values := range out.Header {
			for i, v := range values {
				if strings.Contains(v, ph) {
					out.Header[name][i] = strings.ReplaceAll(v, ph, key)
				}
			}
		}
		if strings.Contains(out.URL.RawQuery, ph) {
			out.URL.RawQuery = strings.ReplaceAll(out.URL.RawQuery, ph, url.QueryEscape(key))
		}
	}
}

// ServeHTTP implements http.Handler: a model API route, a CONNECT tunnel
// or an absolute-URI request to an allowed host.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.connect(w, r)
	case r.URL.IsAbs() && r.URL.Host != p.ln.Addr().String():
		p.forward(w, r)
	default:
		p.model(w, r)
	}
}

// model serves a request to a model API route.
func (p *Proxy) model(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	p.mu.Lock()
	var rt *route
	for prefix, candidate := range p.routes {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			rt = candidate
		}
	}
	p.mu.Unlock()
	if rt == nil {
		http.Error(w, "ralph-ci proxy: no model API at "+path, http.StatusNotFound)
		return
	}
	r.URL.Scheme, r.URL.Host = "", ""
	fullDuplex(w)
	rt.rp.ServeHTTP(w, r)
}

// forward carries an absolute-URI request (plain http through
// HTTP_PROXY) to an allowed host.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	host := hostPort(r.URL.Host, r.URL.Scheme)
	if !p.allowed(host) {
		p.refuse(w, host)
		return
	}
	fullDuplex(w)
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := p.upstream.RoundTrip(out)
	if err != nil {
		http.Error(w, "ralph-ci proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// fullDuplex keeps the server from discarding and closing the request
// body when the answer's header goes out: the transport may still read
// it then (for stray bytes past its length), and a read of a closed body
// made it close the upstream connection mid-answer, cutting a streamed
// answer short (TestStreamedAnswersArriveWhole).
func fullDuplex(w http.ResponseWriter) {
	_ = http.NewResponseController(w).EnableFullDuplex()
}

// connect opens a tunnel to an allowed host.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host := hostPort(r.Host, "https")
	if !p.allowed(host) {
		p.refuse(w, host)
		return
	}
	up, err := p.dial(r.Context(), "tcp", host)
	if err != nil {
		http.Error(w, "ralph-ci proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "ralph-ci proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	p.tunnels.Add(1)
	go func() {
		defer p.tunnels.Done()
		done := make(chan struct{}, 2)
		go func() { _, _ = io.Copy(up, buf); closeWrite(up); done <- struct{}{} }()
		go func() { _, _ = io.Copy(down, up); closeWrite(down); done <- struct{}{} }()
		<-done
		<-done
		up.Close()
		down.Close()
	}()
}

// closeWrite half-closes a TCP connection, so that the other side sees
// the end of what this side sent.
func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
}

// refuse answers 403 and reports the host.
func (p *Proxy) refuse(w http.ResponseWriter, host string) {
	if p.refused != nil {
		p.refused(host)
	}
	http.Error(w, "ralph-ci proxy: "+host+" is not in network.allow", http.StatusForbidden)
}

// allowed tells whether the allow-list lets the proxy reach host
// (host:port).
func (p *Proxy) allowed(host string) bool { return Allowed(p.allow, host) }

// Allowed tells whether allow lets a boxed process reach hostport: an
// entry "host" allows every port of that host, "host:port" that port,
// "*.domain" every host below domain (not domain itself). Names compare
// without case.
func Allowed(allow []string, hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range allow {
		a = strings.ToLower(a)
		ah, ap := a, ""
		if h, pt, err := net.SplitHostPort(a); err == nil {
			ah, ap = h, pt
		}
		if ap != "" && ap != port {
			continue
		}
		if d, ok := strings.CutPrefix(ah, "*."); ok {
			if strings.HasSuffix(host, "."+d) {
				return true
			}
		} else if ah == host {
			return true
		}
	}
	return false
}

// hostPort is host with its port, the scheme's default when it has none.
func hostPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "443"
	if scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}
