package workspace

import (
	"strings"
	"unicode"
)

// componentReason returns why s is not one path component, or "".
func componentReason(s string) string {
	switch {
	case s == "":
		return "is empty"
	case s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00"):
		return "is not a single path component"
	}
	return ""
}

const nameAllow = "one path component with no whitespace, not shaped like an agent id"

// checkAgentName checks a name given to dispatch.
func checkAgentName(name string) error {
	reason := componentReason(name)
	if reason == "" {
		switch {
		case strings.IndexFunc(name, unicode.IsSpace) >= 0:
			reason = "contains whitespace"
		case strings.IndexFunc(name, unicode.IsControl) >= 0:
			reason = "contains a control character"
		case IsID(name):
			reason = "is shaped like an agent id"
		}
	}
	if reason != "" {
		return &BadNameError{What: "name", Name: name, Reason: reason, Allow: nameAllow}
	}
	return nil
}

// checkAddress checks the agent a message is addressed to, before any
// lookup.
func checkAddress(agent string) error {
	if reason := componentReason(agent); reason != "" {
		return &BadNameError{What: "agent", Name: agent, Reason: reason, Allow: "an agent's id or name"}
	}
	return nil
}

// checkSkillName checks a skill name before any file is touched.
func checkSkillName(name string) error {
	if reason := componentReason(name); reason != "" {
		return &BadNameError{What: "skill name", Name: name, Reason: reason, Allow: "one directory of the pool"}
	}
	return nil
}
