package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MessageInput is the input of message.
type MessageInput struct {
	// Agent is an agent's id, or a name worn by exactly one agent.
	Agent string `json:"agent"`
	// Content is the message's body.
	Content string `json:"content"`
}

// MessageOutput is the answer of message.
type MessageOutput struct {
	Status string `json:"status"` // "deposited"
}

// Message deposits in.Content in the inbox of the agent in.Agent names, as
// a new file inbox/<id>/<sender>-<NNN>.md whose frontmatter holds from:
// and deposited_at:. The sender is caller, or "user" when caller is empty;
// NNN counts the sender's messages in that inbox. The file is created,
// never overwritten.
func (ws *Workspace) Message(ctx context.Context, caller string, in MessageInput) (MessageOutput, error) {
	if err := checkAddress(in.Agent); err != nil {
		return MessageOutput{}, err
	}
	r, err := ws.readRefs(ctx)
	if err != nil {
		return MessageOutput{}, err
	}
	if caller != "" {
		if err := r.checkAgent(caller); err != nil {
			return MessageOutput{}, err
		}
	}
	id, err := ws.resolve(ctx, r, in.Agent)
	if err != nil {
		return MessageOutput{}, err
	}
	if _, err := ws.deposit(id, caller, in.Content); err != nil {
		return MessageOutput{}, err
	}
	return MessageOutput{Status: "deposited"}, nil
}

// Resolve returns the id of the agent addressed as agent: its id, or a
// name exactly one agent wears.
func (ws *Workspace) Resolve(ctx context.Context, agent string) (string, error) {
	if err := checkAddress(agent); err != nil {
		return "", err
	}
	r, err := ws.readRefs(ctx)
	if err != nil {
		return "", err
	}
	return ws.resolve(ctx, r, agent)
}

// resolve is [Workspace.Resolve] on the branches of r.
func (ws *Workspace) resolve(ctx context.Context, r *refs, agent string) (string, error) {
	if _, ok := r.agents[agent]; ok {
		return agent, nil
	}
	names, err := ws.names(ctx, r)
	if err != nil {
		return "", err
	}
	var wearers []string
	for _, id := range r.agentIDs() {
		if names[id] == agent {
			wearers = append(wearers, id)
		}
	}
	switch len(wearers) {
	case 0:
		return "", &UnknownAgentError{Agent: agent}
	case 1:
		return wearers[0], nil
	}
	return "", &AmbiguousNameError{Name: agent, Agents: wearers}
}

// deposit writes one sealed message file into id's inbox and returns its
// path.
func (ws *Workspace) deposit(id, sender, content string) (string, error) {
	if sender == "" {
		sender = "user"
	}
	key, err := ws.sealKey()
	if err != nil {
		return "", err
	}
	dir := ws.inbox(id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	m := Message{From: sender, DepositedAt: ws.now().UTC().Format(time.RFC3339), Content: content}
	// Numbering per sender: one past the highest present; a concurrent
	// sender that took the number makes this one try the next.
	n, err := lastNumber(dir, sender)
	if err != nil {
		return "", err
	}
	for {
		n++
		m.File = fmt.Sprintf("%s-%03d.md", sender, n)
		path := filepath.Join(dir, m.File)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.WriteString(sealed(key, id, m))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return "", werr
		}
		return path, nil
	}
}

// lastNumber returns the highest NNN of sender's files in dir, 0 for none.
func lastNumber(dir, sender string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	last := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), sender+"-")
		if !ok {
			continue
		}
		num, ok := strings.CutSuffix(rest, ".md")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(num); err == nil && n > last && strings.Trim(num, "0123456789") == "" {
			last = n
		}
	}
	return last, nil
}
