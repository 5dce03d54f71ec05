// Command gitorigin serves the bare repositories of a folder over git's
// smart HTTP protocol (git http-backend, as CGI) on 127.0.0.1, asking for
// a token the way a private GitHub repository does: every request must
// carry it as basic auth (x-access-token:TOKEN), else 401. The bench
// scripts (bench/delivery.sh) push to it as a CI job does.
//
//	go run ./bench/gitorigin -root DIR -backend "$(git --exec-path)/git-http-backend" -token TOKEN
//
// It prints its URL on the first line of its output, then serves until
// it is stopped.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
)

func main() {
	root := flag.String("root", "", "folder holding the bare repositories (GIT_PROJECT_ROOT)")
	backend := flag.String("backend", "", "path of git-http-backend")
	token := flag.String("token", "", "the token every request must carry")
	flag.Parse()
	if *root == "" || *backend == "" || *token == "" {
		fmt.Fprintln(os.Stderr, "gitorigin: -root, -backend and -token are required")
		os.Exit(2)
	}
	h := &cgi.Handler{Path: *backend, Env: []string{"GIT_PROJECT_ROOT=" + *root, "GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitorigin:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "x-access-token" || pass != *token {
			w.Header().Set("WWW-Authenticate", `Basic realm="origin"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	fmt.Fprintln(os.Stderr, "gitorigin:", err)
	os.Exit(1)
}
