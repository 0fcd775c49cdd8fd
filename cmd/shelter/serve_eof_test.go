package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipedRequests are what a client that writes its requests and closes
// stdin sends: the handshake, tools/list and two calls, one still
// running when the input ends.
func pipedRequests(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	add := func(id any, method string, params any) {
		p, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		req := &jsonrpc.Request{Method: method, Params: p}
		if id != nil {
			if req.ID, err = jsonrpc.MakeID(id); err != nil {
				t.Fatal(err)
			}
		}
		line, err := jsonrpc.EncodeMessage(req)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	add(float64(1), "initialize", &sdk.InitializeParams{ProtocolVersion: "2025-06-18", ClientInfo: &sdk.Implementation{Name: "pipe", Version: "1"}, Capabilities: &sdk.ClientCapabilities{}})
	add(nil, "notifications/initialized", &sdk.InitializedParams{})
	add(float64(2), "tools/list", &sdk.ListToolsParams{})
	add(float64(3), "tools/call", &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo one"}})
	add(float64(4), "tools/call", &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 0.1; echo two"}})
	return b.Bytes()
}

// TestServeStdioAnswersAfterEOF pipes requests into `shelter serve`
// and closes its stdin right after them, 20 times, four at once: every
// request is answered, the calls with their output, and the server
// exits 0 with nothing on stderr.
func TestServeStdioAnswersAfterEOF(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	requests := pipedRequests(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	four := make(chan struct{}, 4)
	for run := range 20 {
		four <- struct{}{}
		wg.Go(func() {
			defer func() { <-four }()
			if err := pipeRequests(exe, dir, requests); err != nil {
				t.Errorf("run %d: %v", run, err)
			}
		})
	}
	wg.Wait()
}

// pipeRequests runs `shelter serve` on requests and checks its answers.
func pipeRequests(exe, dir string, requests []byte) error {
	cmd := exec.Command(exe, "serve", "--cwd", dir)
	cmd.Args[0] = "shelter"
	// A binary built with -race waits a second at exit; these runs need
	// not.
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = bytes.NewReader(requests) // closed once written
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v; stderr %q", err, stderr.String())
	}
	if stderr.Len() > 0 {
		return fmt.Errorf("stderr %q", stderr.String())
	}
	answers := map[int64]string{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var resp struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil || resp.Error != nil {
			return fmt.Errorf("line %q", sc.Text())
		}
		answers[resp.ID] = string(resp.Result)
	}
	for id, want := range map[int64]string{1: `"protocolVersion"`, 2: `"name":"session_close"`, 3: `"stdout":"one\n"`, 4: `"stdout":"two\n"`} {
		if !strings.Contains(answers[id], want) {
			return fmt.Errorf("request %d answered %q, want it to hold %s; all answers: %v", id, answers[id], want, answers)
		}
	}
	return nil
}

// TestServeStdioSIGTERM sends SIGTERM to `shelter serve` on stdio while
// a call runs: no further request is read, the call in flight is
// answered when it ends, or past --grace with exit code 130, and the
// server exits 0.
func TestServeStdioSIGTERM(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		grace   string
		release bool // the call ends when the test says so; otherwise never
		exit    int
		stdout  string
	}{
		{grace: "5m", release: true, exit: 0, stdout: "answered\n"},
		{grace: "10ms", exit: 130},
	} {
		t.Run("grace "+tc.grace, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(exe, "serve", "--cwd", dir, "--grace", tc.grace)
			cmd.Args[0] = "shelter"
			toServer, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &sdk.IOTransport{Reader: out, Writer: toServer}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			script := ": > started; until [ -e release ]; do sleep 0.01; done; echo answered"
			answer := make(chan *sdk.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": script}})
				if err != nil {
					t.Error(err)
				}
				answer <- res
			}()
			until(t, "the call started", func() bool {
				_, err := os.Stat(filepath.Join(dir, "started"))
				return err == nil
			})
			cmd.Process.Signal(syscall.SIGTERM)
			for line := range lines {
				if strings.HasPrefix(line, "shelter serve: stopping: ") {
					break
				}
			}
			if tc.release {
				if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := <-answer
			if res == nil {
				t.Fatal("no answer to the call in flight")
			}
			var r struct {
				ExitCode int    `json:"exit_code"`
				Stdout   string `json:"stdout"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &r)
			if r.ExitCode != tc.exit || r.Stdout != tc.stdout {
				t.Fatalf("the call in flight: exit %d stdout %q, want %d %q", r.ExitCode, r.Stdout, tc.exit, tc.stdout)
			}
			go func() {
				for range lines {
				}
			}()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after SIGTERM: %v", err)
			}
		})
	}
}
