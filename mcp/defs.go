package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// Family is a group of tools that --expose chooses.
type Family string

const (
	FamilyBash    Family = "bash"    // the bash tool
	FamilyHarness Family = "harness" // one tool per harness tool
	FamilyWrapped Family = "wrapped" // one tool per verb of a wrapped command
)

// Families lists every family, in the order --expose names them.
func Families() []Family { return []Family{FamilyBash, FamilyHarness, FamilyWrapped} }

// Def is one tool as an API lists it: what [Render] prints and what the
// server registers. Its InputSchema is the declared one, without the
// session property the server adds.
type Def struct {
	// Name is the wire name: it matches ^[a-zA-Z0-9_-]{1,64}$.
	Name string
	// Title is the name as typed in the shell: "git log", "logs".
	Title       string
	Description string
	InputSchema json.RawMessage
	// OutputSchema is the schema of the tool's JSON result, if declared.
	OutputSchema json.RawMessage
	Annotations  kernel.Annotations

	family Family
	tool   kernel.Tool   // the harness tool or wrapped command; nil for bash and session_close
	verb   *wrapped.Verb // the wrapped verb
	words  []string      // the command's name, the first shell word
	closer bool          // session_close
	bash   bool          // bash
	// apiDescription is bash's description for APIs whose callers hold
	// no session of a server (OpenAI, Anthropic): nothing of the session
	// argument, which their schema has not.
	apiDescription string
}

// DefOptions choose what [Defs] lists.
type DefOptions struct {
	// Expose names the families listed; empty means all.
	Expose []Family
	// Config is the kernel's configuration, which the bash tool's
	// description states (profile, timeout, output limit).
	Config kernel.Config
	// Sessions adds session_close, for a server.
	Sessions bool
	// Default says, with Sessions, that a call without a session runs in
	// the server's default session (stdio), not in a new one (HTTP); the
	// bash tool's description tells which.
	Default bool
	// Yield is the yield_ms a bash call gets when it gives none, which
	// the bash tool's description states; zero means none.
	Yield time.Duration
}

// Defs lists the tools a client sees, sorted by wire name: bash, one per
// harness tool, one per verb of each wrapped command, and session_close
// when opts.Sessions is set. Builtins are reached through bash only. Two
// tools whose wire names collide are an error.
func Defs(tools []kernel.Tool, opts DefOptions) ([]Def, error) {
	expose := func(f Family) bool { return len(opts.Expose) == 0 || slices.Contains(opts.Expose, f) }
	var defs []Def
	var wrappedNames, harnessNames []string
	for _, t := range tools {
		switch t.Kind() {
		case kernel.Harness:
			harnessNames = append(harnessNames, t.Name())
			if !expose(FamilyHarness) {
				continue
			}
			d := Def{Name: WireName(t.Name()), Title: t.Name(), Description: t.Description(), InputSchema: objectSchema(t.InputSchema()), family: FamilyHarness, tool: t, Annotations: annotations(t)}
			if o, ok := t.(kernel.OutputSchemer); ok {
				d.OutputSchema = o.OutputSchema()
			}
			d.Description = withReplaces(d.Description, t)
			defs = append(defs, d)
		case kernel.Wrapped:
			c, ok := t.(*wrapped.Command)
			if !ok {
				continue
			}
			var verbs []string
			for _, v := range c.Verbs() {
				if !v.IsRoot() {
					verbs = append(verbs, v.Name())
				}
			}
			name := c.Name()
			if len(verbs) > 0 {
				name += " (" + strings.Join(verbs, ", ") + ")"
			}
			wrappedNames = append(wrappedNames, name)
			if !expose(FamilyWrapped) {
				continue
			}
			for _, v := range c.Verbs() {
				desc := v.About()
				if desc == "" {
					desc = c.Description()
				}
				defs = append(defs, Def{
					Name: WireName(v.Title()), Title: v.Title(), Description: desc,
					InputSchema: objectSchema(v.Schema()), family: FamilyWrapped, tool: c, verb: v,
					words: []string{c.Name()}, Annotations: v.Annotations(),
				})
			}
		}
	}
	if expose(FamilyBash) {
		api := opts
		api.Sessions, api.Yield = false, 0 // no server: no session argument, no default yield
		defs = append(defs, Def{
			Name: "bash", Title: "bash", Description: bashDescription(opts, wrappedNames, harnessNames),
			InputSchema: json.RawMessage(bashSchema), family: FamilyBash, bash: true,
			Annotations:    kernel.Annotations{Destructive: true, OpenWorld: true},
			apiDescription: bashDescription(api, wrappedNames, harnessNames),
		})
	}
	if opts.Sessions {
		defs = append(defs, Def{
			Name: "session_close", Title: "session_close",
			Description: "End a shell session: its background jobs are killed and its temporary directory removed. Later calls with its handle are refused.",
			InputSchema: json.RawMessage(closeSchema), closer: true,
			Annotations: kernel.Annotations{Destructive: true, Idempotent: true},
		})
	}
	slices.SortFunc(defs, func(a, b Def) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(defs); i++ {
		if defs[i].Name == defs[i-1].Name {
			return nil, fmt.Errorf("mcp: '%s' and '%s' have the same wire name '%s'; rename one", defs[i-1].Title, defs[i].Title, defs[i].Name)
		}
	}
	return defs, nil
}

// WireName is a tool's name as MCP, OpenAI and Anthropic accept it:
// every character outside [a-zA-Z0-9_-] becomes _, and the name is cut
// at 64 bytes.
func WireName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// annotations are a tool's declared hints; a tool that declares none gets
// the cautious ones: it may change and destroy things and reach outside.
func annotations(t kernel.Tool) kernel.Annotations {
	if a, ok := t.(kernel.Annotated); ok && a.Annotations() != (kernel.Annotations{}) {
		return a.Annotations()
	}
	return kernel.Annotations{Destructive: true, OpenWorld: true}
}

func withReplaces(desc string, t kernel.Tool) string {
	r, ok := t.(kernel.Replacer)
	if !ok || len(r.Replaces()) == 0 || strings.Contains(desc, "Use instead of: ") {
		return desc // harness tools say it themselves
	}
	return strings.TrimRight(desc, " ") + " Use instead of: " + strings.Join(r.Replaces(), ", ") + "."
}

func objectSchema(s json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return s
}

const bashSchema = `{"type":"object","properties":{` +
	`"command":{"type":"string","description":"bash source to run"},` +
	`"stdin":{"type":"string","description":"the call's standard input; none by default"},` +
	`"timeout_ms":{"type":"integer","minimum":0,"description":"end the call after this many milliseconds (status 124); the profile's timeout by default"},` +
	`"yield_ms":{"type":"integer","minimum":0,"description":"return after this many milliseconds with what was printed so far, yielded: true and no exit code, the rest going on as background job %N of the session (collect it with wait %N); 0 never yields"}` +
	`},"required":["command"],"additionalProperties":false}`

const closeSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// bashDescription says what the shell is, how its state lasts, when a
// call yields, and lists what it can call.
func bashDescription(opts DefOptions, wrappedNames, harnessNames []string) string {
	cfg := opts.Config
	var b strings.Builder
	profile := cfg.Profile
	if profile == "" {
		profile = kernel.ProfileHost
	}
	fmt.Fprintf(&b, "Run bash source on shelter, a hermetic shell (profile %s", profile)
	if cfg.Timeout > 0 {
		fmt.Fprintf(&b, "; each call times out after %s", cfg.Timeout.Round(time.Millisecond))
	}
	if cfg.OutputLimit > 0 {
		fmt.Fprintf(&b, "; %d KiB of each stream kept, the rest in a spill file", cfg.OutputLimit/1024)
	}
	b.WriteString("). State persists per session: working directory, variables, functions and background jobs.")
	switch {
	case opts.Sessions && opts.Default:
		b.WriteString(" A call without the session argument runs in the server's one default session.")
	case opts.Sessions:
		b.WriteString(" A call without the session argument runs in a new, empty shell: a `cd` or a variable set there is gone in the next call. To go on in a shell, pass the session handle its result names.")
	}
	b.WriteString(" The result holds stdout, stderr and the exit code.")
	if opts.Yield > 0 {
		fmt.Fprintf(&b, " A call still running after yield_ms (default %s; 0 never) returns what it printed so far and goes on as a background job of its session:", opts.Yield.Round(time.Millisecond))
	} else {
		b.WriteString(" A call given yield_ms and still running after it returns what it printed so far and goes on as a background job of its session:")
	}
	b.WriteString(" that result has no exit code, it says `still running as job %N`; collect it with `wait %N` (which gives its exit code) in the same session.")
	slices.Sort(wrappedNames)
	slices.Sort(harnessNames)
	fmt.Fprintf(&b, " Declared commands: %s.", kernel.Pool(wrappedNames))
	fmt.Fprintf(&b, " Harness tools: %s.", kernel.Pool(harnessNames))
	b.WriteString(" `help NAME` prints a command's usage.")
	return b.String()
}
