package ghfake

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// OpenAPIVersion is the version of the npm package @octokit/openapi whose
// generated/api.github.com.json is testdata/api.github.com.json.gz
// (gzip -9 -n; .ci/run checks that the copy is the package's file).
const OpenAPIVersion = "23.0.2"

//go:embed testdata/api.github.com.json.gz
var describedGz []byte

// description is GitHub's published description of its REST API and a
// router over its operations.
type description struct {
	doc    *openapi3.T
	router routers.Router
}

// described is loaded once per test process (about 4 s on 2 cores).
var described = sync.OnceValues(func() (*description, error) {
	zr, err := gzip.NewReader(bytes.NewReader(describedGz))
	if err != nil {
		return nil, fmt.Errorf("GitHub's OpenAPI description: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("GitHub's OpenAPI description: %w", err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("GitHub's OpenAPI description: %w", err)
	}
	// The routes answer on any host (the fake's); GitHub's server is
	// https://api.github.com with no path prefix.
	doc.Servers = openapi3.Servers{{URL: "/"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("GitHub's OpenAPI description: %w", err)
	}
	return &description{doc: doc, router: router}, nil
})

// shape is v (a value the fake keeps) as GitHub answers it: the
// description's example named example (components/examples; for a list,
// its first item for one item of a list), with every field v has (as JSON) laid over it. The
// fields ralph-ci reads are the fake's; the many others GitHub always
// sends are the documented example's, so an answer has every field the
// description requires. Arrays in v take the example's first item as the
// template of each of their items.
func shape(example string, v any) any {
	d, err := described()
	if err != nil {
		panic(err) // conform reports it on the same request
	}
	ex, ok := d.doc.Components.Examples[example]
	if !ok || ex.Value == nil {
		panic("ghfake: GitHub's OpenAPI description has no example " + example)
	}
	base, over := roundTrip(ex.Value.Value), roundTrip(v)
	if items, ok := base.([]any); ok && len(items) > 0 {
		if _, list := over.([]any); !list {
			base = items[0]
		}
	}
	return overlay(base, over)
}

// overlay lays over on base: objects field by field, arrays item by item
// on base's first item, anything else replaced.
func overlay(base, over any) any {
	switch o := over.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			return o
		}
		out := maps.Clone(b)
		for k, v := range o {
			out[k] = overlay(b[k], v)
		}
		return out
	case []any:
		b, ok := base.([]any)
		out := make([]any, len(o))
		for i, v := range o {
			if ok && len(b) > 0 {
				out[i] = overlay(roundTrip(b[0]), v)
			} else {
				out[i] = v
			}
		}
		return out
	}
	return over
}

// roundTrip is v as encoding/json decodes its encoding (a deep copy).
func roundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// validation options: every schema error at once, any documented status
// answered (GitHub's description lists the statuses each operation may
// answer), and authentication left to the fake (it checks the token).
var validation = func() *openapi3filter.Options {
	o := &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	// One line per error: where in the JSON, and why (not the schema).
	o.WithCustomSchemaErrorFunc(func(err *openapi3.SchemaError) string {
		return "at /" + strings.Join(err.JSONPointer(), "/") + ": " + err.Reason
	})
	return o
}()

// conform checks one exchange against GitHub's description: the request
// (path, method, query parameters and body) and, unless faulted (an
// injected failure GitHub may answer on any route), the answer (status,
// headers, body). It returns why they do not conform, or nil.
func conform(r *http.Request, reqBody []byte, answer *httptest.ResponseRecorder, faulted bool) error {
	d, err := described()
	if err != nil {
		return err
	}
	// FindRoute matches on the URL's host too: the fake's routes are "/".
	u := *r.URL
	u.Scheme, u.Host = "", ""
	// The contents API's {path} is a file's path, slashes and all, which
	// a router's path segment does not match: escape them.
	if m := reContentsPath.FindStringSubmatch(u.Path); m != nil {
		u.RawPath = m[1] + strings.ReplaceAll(m[2], "/", "%2F")
	}
	find := r.Clone(context.Background())
	find.URL = &u
	route, params, err := d.router.FindRoute(find)
	if err != nil {
		return fmt.Errorf("no operation of the description has this path and method (%w)", err)
	}
	find.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.RequestValidationInput{Request: find, PathParams: params, Route: route, Options: validation}
	var errs []error
	if err := undeclaredQuery(route, r); err != nil {
		errs = append(errs, err)
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		errs = append(errs, fmt.Errorf("request: %w", err))
	}
	if answer != nil && (faulted || generic(route, answer.Code)) {
		// Not the operation's own answer: GitHub's error shape.
		var body any
		if err := json.Unmarshal(answer.Body.Bytes(), &body); err != nil {
			errs = append(errs, fmt.Errorf("response %d: %w", answer.Code, err))
		} else if err := d.doc.Components.Schemas["basic-error"].Value.VisitJSON(body); err != nil {
			errs = append(errs, fmt.Errorf("response %d is not a basic-error: %w", answer.Code, err))
		}
	} else if answer != nil {
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: answer.Code,
			Header: answer.Header(), Options: validation}
		out.SetBodyBytes(answer.Body.Bytes())
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			errs = append(errs, fmt.Errorf("response %d: %w", answer.Code, err))
		}
	}
	return errors.Join(errs...)
}

// generic reports whether code is an answer GitHub gives on any
// operation, whether or not the operation documents it: bad credentials
// (401), a token that may not do this (403), no such resource or no
// access to it (404), a rate limit (429) and server errors (5xx).
func generic(route *routers.Route, code int) bool {
	if route.Operation.Responses.Status(code) != nil {
		return false
	}
	return code == 401 || code == 403 || code == 404 || code == 429 || code >= 500
}

var reContentsPath = regexp.MustCompile(`^(/repos/[^/]+/[^/]+/contents/)(.+)$`)

// undeclaredQuery reports query parameters the operation does not declare
// (openapi3filter checks only the declared ones).
func undeclaredQuery(route *routers.Route, r *http.Request) error {
	var declared []string
	for _, ps := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared = append(declared, p.Value.Name)
			}
		}
	}
	var bad []string
	for name := range r.URL.Query() {
		if !slices.Contains(declared, name) {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("query parameters %s are not declared (declared: %s)", strings.Join(bad, ", "), strings.Join(declared, ", "))
}
