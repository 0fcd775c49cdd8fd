package wrapped_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// A declaration in Go: the same vocabulary as YAML. /bin/echo stands in
// for git so that the argv is what it prints.
func ExampleNew() {
	git, err := wrapped.New("git", "/bin/echo").
		About("Version control, read-mostly.").
		Lead("--no-pager").
		Env("GIT_PAGER", "cat").
		Verb(wrapped.NewVerb("log").
			About("Show commit logs.").
			Flag(
				wrapped.Int("max-count").Alias("n").About("Limit the number of commits."),
				wrapped.Switch("oneline"),
				wrapped.String("since"),
			).
			Arg(wrapped.Many("revision")).
			Example("last five", "git log -n 5 --oneline")).
		Root(wrapped.NewVerb("").Flag(wrapped.Switch("version"))).
		Build(wrapped.LoadOptions{})
	if err != nil {
		panic(err)
	}
	k, _ := kernel.New(kernel.Config{Tools: []kernel.Tool{git}})
	s, _ := k.NewSession(kernel.SessionOptions{})
	defer s.Close()
	res, _ := s.Run(context.Background(), "git log -n 5 --oneline main -- docs", kernel.RunOptions{})
	fmt.Print(res.Stdout)
	res, _ = s.Run(context.Background(), "git log --output=x", kernel.RunOptions{})
	fmt.Println(res.ExitCode, res.Issues[0].Message)
	// Output:
	// --no-pager log --max-count=5 --oneline main -- docs
	// 2 git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since
}

func ExampleCommand_Plan() {
	git, _ := wrapped.New("git", "/bin/echo").
		Verb(wrapped.NewVerb("log").Flag(wrapped.Int("max-count").Alias("n"), wrapped.Switch("oneline")).Arg(wrapped.Many("revision"))).
		Build(wrapped.LoadOptions{})
	plan, err := git.Plan([]string{"log", "-n", "5", "--oneline", "main"}, "/")
	fmt.Println(plan.Argv[1:], err)
	_, err = git.Plan([]string{"log", "-n5"}, "/")
	fmt.Println(err)
	_, err = git.Plan([]string{"log", "-n", "many"}, "/")
	fmt.Println(err)
	// Output:
	// [log --max-count=5 --oneline main] <nil>
	// git log: value glued to flag '-n5'; allowed: -n 5
	// git log: invalid --max-count 'many'; allowed: a base-10 integer
}

func ExampleCommand_PlanJSON() {
	git, _ := wrapped.New("git", "/bin/echo").
		Verb(wrapped.NewVerb("log").Flag(wrapped.Int("max-count").Alias("n"), wrapped.Switch("oneline")).Arg(wrapped.Many("revision"))).
		Build(wrapped.LoadOptions{})
	plan, err := git.PlanJSON("log", json.RawMessage(`{"revision": ["main"], "max-count": 5}`), "/")
	fmt.Println(plan.Argv[1:], err)
	_, err = git.PlanJSON("log", json.RawMessage(`{"revision": ["--output=x"]}`), "/")
	fmt.Println(err)
	// Output:
	// [log --max-count=5 main] <nil>
	// git log: revision '--output=x' starts with '-'; allowed: a value that does not start with -
}

func ExampleVerb_Schema() {
	git, _ := wrapped.New("git", "/bin/echo").
		Verb(wrapped.NewVerb("log").Flag(wrapped.Int("max-count").Alias("n"), wrapped.Switch("oneline")).Arg(wrapped.Many("revision"))).
		Build(wrapped.LoadOptions{})
	v, _ := git.Verb("log")
	fmt.Println(string(v.Schema()))
	// Output:
	// {"type":"object","properties":{"max-count":{"type":"integer"},"oneline":{"type":"boolean"},"revision":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}
}

// The static pass: a literal refusal is certain, one with an opaque word
// (an expansion) only a warning.
func ExampleCommand_CheckStatic() {
	git, _ := wrapped.New("git", "/bin/echo").
		Verb(wrapped.NewVerb("log").Flag(wrapped.Switch("oneline"))).
		Build(wrapped.LoadOptions{})
	fmt.Println(git.CheckStatic([]kernel.Word{{Text: "git"}, {Text: "log"}, {Text: "--stat"}}))
	err := git.CheckStatic([]kernel.Word{{Text: "git"}, {Text: "log"}, {Opaque: true}, {Text: "--stat"}})
	_, uncertain := err.(interface{ Unwrap() error })
	fmt.Println(err, uncertain)
	// Output:
	// git log: unknown flag '--stat'; allowed: --oneline
	// git log: unknown flag '--stat'; allowed: --oneline true
}

func ExampleLoadFile() {
	dir, _ := os.MkdirTemp("", "wrapped-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tools.yaml")
	os.WriteFile(path, []byte(`
commands:
  say:
    executable: /bin/echo
    about: Print words.
    root:
      flags: {newline: {alias: [n]}}
      positionals: [{name: word, many: true}]
`), 0o644)
	cmds, err := wrapped.LoadFile(path, wrapped.LoadOptions{})
	if err != nil {
		panic(err)
	}
	plan, _ := cmds[0].Plan([]string{"-n", "hello"}, dir)
	fmt.Println(cmds[0].Name(), plan.Argv)

	os.WriteFile(path, []byte("commands:\n  say:\n    executable: /bin/echo\n    root: {flags: {n: {typo: 1}}}\n"), 0o644)
	_, err = wrapped.LoadFile(path, wrapped.LoadOptions{})
	fmt.Println(strings.TrimPrefix(err.Error(), dir+"/"))
	// Output:
	// say [/bin/echo --newline hello]
	// tools.yaml:4:24: unknown key 'typo' in say flag 'n'; allowed: about, alias, choices, repeatable, required, style, type
}

// DecodeYAML takes the commands: node of a file another reader parsed.
func ExampleDecodeYAML() {
	var doc yaml.Node
	yaml.Unmarshal([]byte("commands:\n  say: {executable: /bin/echo, root: {}}\ntools: {}\n"), &doc)
	top := doc.Content[0]
	for i := 0; i < len(top.Content); i += 2 {
		if top.Content[i].Value == "commands" {
			cmds, err := wrapped.DecodeYAML("tools.yaml", top.Content[i+1], wrapped.LoadOptions{})
			fmt.Println(len(cmds), cmds[0].Name(), err)
		}
	}
	// Output:
	// 1 say <nil>
}

// A declaration asks a confined session for more than it gives every
// program: here the network for one verb, and a shared cache to write for
// all. Help says what each verb may reach.
func ExampleCommandSpec_Network() {
	cache, _ := os.MkdirTemp("", "gomodcache")
	defer os.RemoveAll(cache)
	gocmd, err := wrapped.New("go", "/bin/echo").
		WritePaths(cache).
		Verb(wrapped.NewVerb("build"),
			wrapped.NewVerb("download").OmitName().Lead("mod", "download").Network()).
		Build(wrapped.LoadOptions{})
	if err != nil {
		panic(err)
	}
	for _, v := range gocmd.Verbs() {
		fmt.Println(v.Title(), v.Network(), len(v.WritePaths()))
	}
	download, _ := gocmd.Verb("download")
	help := download.Help()
	fmt.Print(help[strings.Index(help, "network:"):strings.Index(help, "also writes")])
	// Output:
	// go build false 1
	// go download true 1
	// network: on
}

// Hints for MCP clients: a verb's own annotations, else its command's,
// else the cautious ones of a tool that says nothing.
func ExampleVerbSpec_Annotations() {
	git, _ := wrapped.New("git", "/bin/echo").
		Verb(wrapped.NewVerb("log").Annotations(kernel.Annotations{ReadOnly: true})).
		Verb(wrapped.NewVerb("push")).
		Build(wrapped.LoadOptions{})
	for _, v := range git.Verbs() {
		fmt.Printf("%s: %+v\n", v.Title(), v.Annotations())
	}
	// Output:
	// git log: {ReadOnly:true Destructive:false Idempotent:false OpenWorld:false}
	// git push: {ReadOnly:false Destructive:true Idempotent:false OpenWorld:true}
}
