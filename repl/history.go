package repl

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// History is the REPL's history: past entries in memory, appended to a
// file as they are accepted, where later runs read them. Prompts running
// at once each append their own entries to the file, without
// interleaving them, but do not see each other's until they start again.
// The file holds one entry a line, as typed; an entry
// of several lines is written on one, with each newline as \n and each
// backslash as \\. History implements the line editor's history source.
type History struct {
	path string

	mu      sync.Mutex
	entries []string
}

// OpenHistory reads the history file at path; a file that does not
// exist yet is an empty history, created with its directory by the
// first entry. An empty path keeps the history in memory only. The
// History is never nil: when the file cannot be read, or only in part,
// it holds what was read, new entries are still appended to the file,
// and the error says what went wrong.
func OpenHistory(path string) (*History, error) {
	h := &History{path: path}
	if path == "" {
		return h, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			h.entries = append(h.entries, unescapeEntry(line))
		}
	}
	return h, sc.Err()
}

// DefaultHistoryPath is $XDG_STATE_HOME/shelter/history, or
// ~/.local/state/shelter/history when XDG_STATE_HOME is not set to an
// absolute path; empty when neither can be found.
func DefaultHistoryPath() string {
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "shelter", "history")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "shelter", "history")
}

// Write adds an entry and appends it to the file. It returns the number
// of entries.
func (h *History) Write(entry string) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, entry)
	if h.path == "" {
		return len(h.entries), nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return len(h.entries), err
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return len(h.entries), err
	}
	// One write of one line: entries of prompts running at once do not
	// interleave within a line.
	_, err = f.WriteString(escapeEntry(entry) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return len(h.entries), err
}

// GetLine returns entry i, oldest first.
func (h *History) GetLine(i int) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i < 0 || i >= len(h.entries) {
		return "", fmt.Errorf("history: no entry %d", i)
	}
	return h.entries[i], nil
}

// Len is the number of entries.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// Dump returns the entries, oldest first, as a []string.
func (h *History) Dump() any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.entries...)
}

var (
	entryEscaper   = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	entryUnescaper = strings.NewReplacer(`\\`, `\`, `\n`, "\n")
)

func escapeEntry(s string) string   { return entryEscaper.Replace(s) }
func unescapeEntry(s string) string { return entryUnescaper.Replace(s) }
