package workspace

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Message is one message shelter deposited in an inbox.
type Message struct {
	File        string // the file's name in the inbox, <sender>-<NNN>.md
	From        string // the sender: an agent id, or "user"
	DepositedAt string // RFC 3339, UTC
	Content     string
}

// Inbox returns the messages waiting in agent id's inbox, sorted by file
// name, and the names of the other files there: those shelter did not
// deposit, or that were changed since. A message is sealed when shelter
// writes it (a `seal:` line of its frontmatter, an HMAC under a key in
// repo.git that only shelter reads), so a file placed in the inbox by
// other means is never taken for one.
func (ws *Workspace) Inbox(id string) (msgs []Message, foreign []string, err error) {
	entries, err := os.ReadDir(ws.inbox(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	key, err := ws.sealKey()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			foreign = append(foreign, e.Name())
			continue
		}
		data, err := os.ReadFile(filepath.Join(ws.inbox(id), e.Name()))
		if err != nil {
			return nil, nil, err
		}
		if m, ok := openSealed(key, id, e.Name(), string(data)); ok {
			msgs = append(msgs, m)
		} else {
			foreign = append(foreign, e.Name())
		}
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].File < msgs[j].File })
	sort.Strings(foreign)
	return msgs, foreign, nil
}

// InboxCount returns the number of messages waiting in agent id's inbox;
// files shelter did not deposit are not counted ([Workspace.Inbox]).
func (ws *Workspace) InboxCount(id string) (int, error) {
	msgs, _, err := ws.Inbox(id)
	return len(msgs), err
}

// sealed renders message m for inbox id, sealed under key.
func sealed(key []byte, id string, m Message) string {
	head := fmt.Sprintf("---\nfrom: %s\ndeposited_at: %s\n", m.From, m.DepositedAt)
	return head + "seal: " + seal(key, id, m.File, head, m.Content) + "\n---\n" + m.Content
}

// seal binds a message to its inbox, its file name, its header and its
// content.
func seal(key []byte, id, file, head, content string) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s\x00%s\x00%s\x00%s", id, file, head, content)
	return hex.EncodeToString(mac.Sum(nil))
}

// openSealed parses a file of inbox id written by [sealed] and checks its
// seal.
func openSealed(key []byte, id, file, data string) (Message, bool) {
	lines := strings.SplitN(data, "\n", 6)
	if len(lines) != 6 || lines[0] != "---" || lines[4] != "---" {
		return Message{}, false
	}
	from, ok1 := strings.CutPrefix(lines[1], "from: ")
	at, ok2 := strings.CutPrefix(lines[2], "deposited_at: ")
	got, ok3 := strings.CutPrefix(lines[3], "seal: ")
	if !ok1 || !ok2 || !ok3 {
		return Message{}, false
	}
	head := strings.Join(lines[:3], "\n") + "\n"
	want := seal(key, id, file, head, lines[5])
	if !hmac.Equal([]byte(got), []byte(want)) {
		return Message{}, false
	}
	return Message{File: file, From: from, DepositedAt: at, Content: lines[5]}, true
}

// sealKey returns the workspace's sealing key, repo.git/shelter.key,
// making it on first need. The key is published with a link, which never
// replaces a file: of two processes making it at once, one key wins and
// both use it.
func (ws *Workspace) sealKey() ([]byte, error) {
	name := filepath.Join(ws.Dir, "repo.git", "shelter.key")
	key, err := os.ReadFile(name)
	if err == nil && len(key) == 32 {
		return key, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err == nil {
		return nil, fmt.Errorf("%s holds %d bytes, not a 32-byte key", name, len(key))
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".shelter.key-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(key)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	if err := os.Link(tmp.Name(), name); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return os.ReadFile(name)
}
