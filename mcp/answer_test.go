package mcp_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/mcp"
)

// TestStdioAnswerBytes pins a bash call's answer as a client reads it,
// byte for byte, at both protocol generations: the JSON-RPC envelope,
// the text block, the structured content's fields in their order, and
// HTML characters escaped as the SDK escapes them. The session's handle,
// the directory and the duration vary and are replaced.
func TestStdioAnswerBytes(t *testing.T) {
	const (
		call1 = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{%s"name":"bash","arguments":{"command":"echo hi"}}}`
		call2 = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{%s"name":"bash","arguments":{"command":"echo '<a&b>' >&2; exit 3"}}}`
		meta  = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`
		// The 2026-07-28 answer's _meta and resultType, after the
		// fields of either.
		serverMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"shelter","version":"devel"}},`
		complete   = `,"resultType":"complete"`
		answer1    = `{"jsonrpc":"2.0","id":2,"result":{%s"content":[{"type":"text","text":"hi\nexit code: 0"}],"structuredContent":{"exit_code":0,"stdout":"hi\n","stderr":"","data":null,"cwd":"CWD","duration_ms":0,"timed_out":false,"cancelled":false,"rejected":false,"truncated":false,"stdout_bytes":3,"stderr_bytes":0,"spill_path":"","stderr_spill_path":"","yielded":false,"issues":[],"jobs":[],"session":"HANDLE"}%s}}`
		answer2    = `{"jsonrpc":"2.0","id":"x","result":{%s"content":[{"type":"text","text":"--- stderr ---\n\u003ca\u0026b\u003e\nexit code: 3"}],"structuredContent":{"exit_code":3,"stdout":"","stderr":"\u003ca\u0026b\u003e\n","data":null,"cwd":"CWD","duration_ms":0,"timed_out":false,"cancelled":false,"rejected":false,"truncated":false,"stdout_bytes":0,"stderr_bytes":6,"spill_path":"","stderr_spill_path":"","yielded":false,"issues":[],"jobs":[],"session":"HANDLE"},"isError":true%s}}`
	)
	for _, tc := range []struct {
		name      string
		handshake []string
		meta      string
		want      []string
	}{
		{"2025-06-18", []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		}, "", []string{sprintf(answer1, "", ""), sprintf(answer2, "", "")}},
		{"2026-07-28", nil, meta, []string{sprintf(answer1, serverMeta, complete), sprintf(answer2, serverMeta, complete)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			lines := exchange(t, mcp.Options{Kernel: newKernel(t), Default: true, Yield: 45 * time.Second, Version: "devel", Session: kernel.SessionOptions{Dir: dir}},
				append(tc.handshake, sprintf(call1, tc.meta), sprintf(call2, tc.meta)))
			lines = lines[len(lines)-2:]
			handle := regexp.MustCompile(`"session":"[0-9a-f]+"`)
			duration := regexp.MustCompile(`"duration_ms":[0-9]+`)
			for i, line := range lines {
				line = strings.ReplaceAll(line, `"cwd":"`+dir+`"`, `"cwd":"CWD"`)
				line = handle.ReplaceAllString(line, `"session":"HANDLE"`)
				line = duration.ReplaceAllString(line, `"duration_ms":0`)
				if line != tc.want[i] {
					t.Errorf("answer %d:\n%s\nwant\n%s", i+1, line, tc.want[i])
				}
			}
		})
	}
}

func sprintf(format string, args ...string) string {
	for _, a := range args {
		format = strings.Replace(format, "%s", a, 1)
	}
	return format
}

// exchange sends each request line to a server on stdio pipes, waiting
// for the answer to each call before it sends the next, and returns the
// answers.
func exchange(t *testing.T, opts mcp.Options, requests []string) []string {
	t.Helper()
	srv, err := mcp.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromServer, toClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), &mcp.StreamTransport{Reader: toServer, Writer: toClient})
	}()
	answers := make(chan string)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(fromServer)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			answers <- sc.Text()
		}
	}()
	var lines []string
	for _, r := range requests {
		if _, err := io.WriteString(fromClient, r+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r, `"id":`) {
			line, ok := <-answers
			if !ok {
				t.Fatalf("no answer to %s", r)
			}
			lines = append(lines, line)
		}
	}
	fromClient.Close()
	if err := <-done; err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return lines
}
