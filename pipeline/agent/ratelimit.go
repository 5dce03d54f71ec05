package agent

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/internal/text"
)

// limitRE matches the rate-limit, quota and overload messages the agent
// CLIs print. The tests quote a real message for each, with its source.
var limitRE = lazyregexp.New(`(?i)` + strings.Join([]string{
	// Claude Code: "Claude AI usage limit reached|1755615600", "Claude usage
	// limit reached. Your limit will reset at 5pm (Europe/Warsaw).", "5-hour
	// limit reached ∙ resets 5am", "You've hit your limit · resets 8pm
	// (Europe/Berlin)", API errors 429 rate_limit_error and 529 overloaded_error.
	`claude (?:ai )?usage limit reached`,
	`\d+[- ]hour limit reached`,
	`you(?:'|’)ve hit your (?:\w+ )?limit`,
	`type\\?"\s*:\s*\\?"(?:rate_limit_error|overloaded_error)`,
	`api error:? \(?(?:429|529)\b`,
	// Claude Code 2.1.197 and 2.1.332 after its retries (captured against a server
	// answering 429 rate_limit_error: testdata/captured/claude-*-429.log):
	// "API Error: Request rejected (429) · This request would exceed your
	// account's rate limit. Please try again later.", with
	// "api_error_status":429 in its result, and stream-json events
	// {"type":"system","subtype":"api_retry",…,"error_status":429} while it
	// retries (claudeFormat turns them into "api_retry: error_status 429").
	`request rejected \((?:429|529)\)`,
	`api_error_status\\?"\s*:\s*(?:429|529)\b`,
	`api_retry: error_status (?:429|529)\b`,
	// Codex and the OpenAI API: "You've hit your usage limit. … try again at
	// 3:28 PM.", usage_limit_reached, "Rate limit reached for … Please try
	// again in 21.509s.", "exceeded retry limit, last status: 429 Too Many
	// Requests", "Quota exceeded. Check your plan and billing details."
	`usage_limit_reached`,
	`rate limit reached for`,
	`rate limit is exceeded`,
	`rate_limit_exceeded`,
	`exceeded retry limit, last status: 429`,
	`429 too many requests`,
	`quota exceeded`,
	// Gemini CLI and Google APIs: "status": "RESOURCE_EXHAUSTED", "You have
	// exhausted your capacity on this model. Your quota will reset after
	// 1h49m8s.", "You have reached your daily quota limit."
	`status\\?"\s*:\s*\\?"resource_exhausted`,
	`you have exhausted your capacity`,
	`terminalquotaerror`,
	`resource has been exhausted`,
	`exceeded your current quota`,
	`reached your daily quota`,
	`code\\?"\s*:\s*429\b`,
}, "|"))

// startupRE matches the messages with which an agent CLI refuses to start
// or to work at all: every rotation would end the same way, so the run
// ends (see Report.StartupFailure). Claude Code 2.1.332 prints
// "--dangerously-skip-permissions cannot be used with root/sudo privileges
// for security reasons" and exits 1 (testdata/captured/claude-*-root.log),
// and answers a refused key with "Invalid API key · Please run /login" or
// "Not logged in · Please run /login".
var startupRE = lazyregexp.New(`(?i)cannot be used with root/sudo privileges|invalid api key|not logged in\b.{0,20}/login`)

// startupKeywords prefilter lines for startupRE, as limitKeywords do for
// limitRE.
var startupKeywords = [][]byte{[]byte("privileges"), []byte("api key"), []byte("/login")}

// limitKeywords prefilter lines: every limitRE alternative contains one.
var limitKeywords = [][]byte{
	[]byte("limit"), []byte("quota"), []byte("exhaust"), []byte("overload"), []byte("429"), []byte("529"),
}

// limitLiterals prefilter the lines that hold a keyword, before limitRE:
// a match of each alternative contains one of them, ASCII-lowered, unless
// the line holds the Kelvin sign or the long s, which (?i) folds with k
// and s (see mayBeLimit).
var limitLiterals = [][]byte{
	[]byte("limit reached"), []byte("limit_reached"), []byte("ve hit your "), []byte("_error"),
	[]byte("api error"), []byte("request rejected ("), []byte("error_status"), []byte("limit is exceeded"),
	[]byte("limit_exceeded"), []byte("exceeded retry limit"), []byte("too many requests"),
	[]byte("quota exceeded"), []byte("resource_exhausted"), []byte("exhausted your capacity"),
	[]byte("terminalquotaerror"), []byte("been exhausted"), []byte("current quota"), []byte("daily quota"),
	[]byte(`code"`), []byte(`code\"`),
}

// Reset times in messages.
var (
	// Claude Code's machine form: "Claude AI usage limit reached|<unix time>".
	epochRE = lazyregexp.New(`(?i)limit reached\|(\d{10,13})`)
	// The ChatGPT backend's usage_limit_reached error (seen through Codex).
	resetsAtRE = lazyregexp.New(`resets_at\\?"\s*:\s*(\d{10,13})`)
	resetsInRE = lazyregexp.New(`resets_in_seconds\\?"\s*:\s*(\d{1,9})`)
	// "try again in 5 days 22 hours 11 minutes", "Please try again in
	// 21.509s", "Your quota will reset after 1h49m8s", "Please retry in 12.5s".
	durationRE     = lazyregexp.New(`(?i)(?:try again in|retry in|reset after)\s+((?:\d+(?:\.\d+)?\s*(?:` + units + `)[\s,]*(?:and\s+)?)+)`)
	durationPartRE = lazyregexp.New(`(?i)(\d+(?:\.\d+)?)\s*(` + units + `)`)
	// "resets 3pm", "resets 6:20pm (Europe/Berlin)", "resets Apr 23 at 4pm
	// (America/Recife)", "resets Feb 7, 11am (Asia/Seoul)", "reset at 5pm
	// (Europe/Warsaw)", "try again at 3:28 PM", "try again at Jul 5th, 2026
	// 8:19 PM".
	clockRE = lazyregexp.New(`(?i)(?:\bresets?(?:\s+at)?|try again at)\s+` +
		`(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?(?:at\s+)?)?` +
		`(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?` +
		`(?:\s*\(([A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)*)\))?`)
)

const units = `milliseconds?|ms|minutes?|mins?|m|seconds?|secs?|s|hours?|hrs?|h|days?|d`

// limitScanner looks for rate-limit messages in the diagnostic lines
// written to it in chunks (see Format). It keeps the first maxLimitLine
// bytes of the current line, and looks at each line when it ends. A reset
// time is read from a message's line and from the next non-blank line,
// since terminals and some CLIs wrap "… or try again at 3:28 PM." onto a
// line of its own.
//
// A line without a keyword changes nothing unless it follows a message,
// so a chunk's lines are read only from the one holding the chunk's next
// keyword: the others are passed over with one search for the keywords.
type limitScanner struct {
	now      func() time.Time
	lines    text.Lines
	keywords needleSet
	inLine   bool // the last write ended inside a line
	scratch  []byte
	afterHit bool
	hit      bool
	msg      string
	reset    time.Time
	startup  string // the first start-up failure message
}

func newLimitScanner(now func() time.Time) *limitScanner {
	var words []string
	for _, k := range append(limitKeywords[:len(limitKeywords):len(limitKeywords)], startupKeywords...) {
		words = append(words, string(k))
	}
	return &limitScanner{now: now, keywords: newNeedleSet(words, true)}
}

func (s *limitScanner) Write(p []byte) (int, error) {
	s.lines.Max = maxLimitLine
	s.keywords.reset()
	for off := 0; off < len(p); {
		if !s.inLine && !s.afterHit {
			k, _ := s.keywords.first(p, off)
			if k < 0 { // pass over the whole lines
				off += bytes.LastIndexByte(p[off:], '\n') + 1
			} else { // to the start of the keyword's line
				off += bytes.LastIndexByte(p[off:k], '\n') + 1
			}
			if off == len(p) {
				break
			}
		}
		i := bytes.IndexByte(p[off:], '\n')
		if i < 0 {
			s.lines.Write(p[off:], s.endLine)
			s.inLine = true
			break
		}
		s.lines.Write(p[off:off+i+1], s.endLine)
		s.inLine = false
		off += i + 1
	}
	return len(p), nil
}

// endLine looks at a line (its first maxLimitLine bytes).
func (s *limitScanner) endLine(line []byte, _ bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if s.startup == "" && startupRE.Match(line) {
		s.startup = clip(strings.TrimSpace(string(line)), maxMessage)
	}
	var hit bool
	hit, s.scratch = isLimitMessage(line, s.scratch)
	if hit {
		s.hit = true
		s.msg = clip(strings.TrimSpace(string(line)), maxMessage)
	}
	if hit || s.afterHit {
		if t, ok := resetTime(string(line), s.now()); ok && t.After(s.reset) {
			s.reset = t
		}
	}
	s.afterHit = hit
}

func (s *limitScanner) finish(r *Report) {
	s.lines.End(s.endLine)
	r.RateLimited, r.RateLimitMessage, r.ResetAt = s.hit, s.msg, s.reset
	if r.StartupFailure == "" {
		r.StartupFailure = s.startup
	}
}

// isLimitMessage tells whether line is a rate-limit message. scratch is
// reused for the prefilter and returned.
func isLimitMessage(line, scratch []byte) (bool, []byte) {
	scratch = append(scratch[:0], line...)
	lowerASCII(scratch, line)
	for _, k := range limitKeywords {
		if bytes.Contains(scratch, k) {
			return mayBeLimit(scratch) && limitRE.Match(line), scratch
		}
	}
	return false, scratch
}

// mayBeLimit is false for an ASCII-lowered line limitRE surely does not
// match: one without any of limitLiterals, and without the lead bytes of
// U+212A (Kelvin sign, 0xe2) and U+017F (long s, 0xc5).
func mayBeLimit(low []byte) bool {
	if bytes.IndexByte(low, 0xe2) >= 0 || bytes.IndexByte(low, 0xc5) >= 0 {
		return true
	}
	for _, l := range limitLiterals {
		if bytes.Contains(low, l) {
			return true
		}
	}
	return false
}

// resetTime returns the latest reset time line tells of, relative to now.
func resetTime(line string, now time.Time) (time.Time, bool) {
	var latest time.Time
	note := func(t time.Time) {
		if t.After(latest) {
			latest = t
		}
	}
	for _, m := range epochRE.FindAllStringSubmatch(line, -1) {
		note(epoch(m[1]))
	}
	for _, m := range resetsAtRE.FindAllStringSubmatch(line, -1) {
		note(epoch(m[1]))
	}
	for _, m := range resetsInRE.FindAllStringSubmatch(line, -1) {
		s, _ := strconv.Atoi(m[1])
		note(now.Add(time.Duration(s) * time.Second))
	}
	for _, m := range durationRE.FindAllStringSubmatch(line, -1) {
		note(now.Add(parseDuration(m[1])))
	}
	for _, m := range clockRE.FindAllStringSubmatch(line, -1) {
		if t, ok := clockTime(m, now); ok {
			note(t)
		}
	}
	return latest, !latest.IsZero()
}

// epoch reads Unix seconds, or milliseconds when it has 13 digits.
func epoch(digits string) time.Time {
	n, _ := strconv.ParseInt(digits, 10, 64)
	if len(digits) == 13 {
		return time.UnixMilli(n)
	}
	return time.Unix(n, 0)
}

// parseDuration reads "5 days 22 hours 11 minutes", "1h49m8s", "21.509s".
func parseDuration(s string) time.Duration {
	var d time.Duration
	for _, m := range durationPartRE.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.ParseFloat(m[1], 64)
		unit := time.Second
		switch u := strings.ToLower(m[2]); {
		case u == "ms" || strings.HasPrefix(u, "milli"):
			unit = time.Millisecond
		case strings.HasPrefix(u, "m"):
			unit = time.Minute
		case strings.HasPrefix(u, "h"):
			unit = time.Hour
		case strings.HasPrefix(u, "d"):
			unit = 24 * time.Hour
		}
		d += time.Duration(n * float64(unit))
	}
	return d
}

// clockTime reads a clockRE match: an optional date, a 12-hour clock time
// and an optional IANA zone (the local zone when absent or unknown). A time
// without a date is the next such time; a date without a year is this year's
// unless that is more than a day past.
func clockTime(m []string, now time.Time) (time.Time, bool) {
	hour, _ := strconv.Atoi(m[4])
	minute, _ := strconv.Atoi("0" + m[5])
	if hour < 1 || hour > 12 || minute > 59 {
		return time.Time{}, false
	}
	hour %= 12
	if strings.EqualFold(m[6], "p") {
		hour += 12
	}
	loc := now.Location()
	if m[7] != "" {
		if l, err := time.LoadLocation(m[7]); err == nil {
			loc = l
		}
	}
	local := now.In(loc)
	if m[1] == "" {
		t := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
		if t.Before(now) {
			t = t.AddDate(0, 0, 1)
		}
		return t, true
	}
	month := time.Month(strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(m[1]))/3 + 1)
	day, _ := strconv.Atoi(m[2])
	if day < 1 || day > 31 {
		return time.Time{}, false
	}
	year := local.Year()
	if m[3] != "" {
		year, _ = strconv.Atoi(m[3])
	}
	t := time.Date(year, month, day, hour, minute, 0, 0, loc)
	if m[3] == "" && t.Before(now.Add(-24*time.Hour)) {
		t = t.AddDate(1, 0, 0)
	}
	return t, true
}
