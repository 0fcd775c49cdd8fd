package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeMessage reads one JSON-RPC message, a request or a response, as
// jsonrpc.DecodeMessage does, without its JSON decoders: the SDK makes a
// new one, with a 32 KiB buffer, for each of the two values it decodes
// per message. Params and Result alias data. Keys match exactly, as the
// SDK's do; a key given twice takes its last value.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	if !json.Valid(data) {
		return nil, errNotJSON(data)
	}
	var f wireFields
	if err := f.read(data); err != nil {
		return nil, err
	}
	if f.version == nil {
		return nil, fmt.Errorf("jsonrpc message: no \"jsonrpc\": \"2.0\"")
	}
	if v, ok := unquote(f.version); !ok || v != "2.0" {
		return nil, fmt.Errorf("jsonrpc message: version %s, want \"2.0\"", f.version)
	}
	id, err := decodeID(f.id)
	if err != nil {
		return nil, err
	}
	if f.method != nil {
		method := ""
		if !isNull(f.method) {
			var ok bool
			if method, ok = unquote(f.method); !ok {
				return nil, fmt.Errorf("jsonrpc message: method %s is not a string", f.method)
			}
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: f.params}, nil
	}
	if !id.IsValid() {
		return nil, fmt.Errorf("jsonrpc message: a response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: f.result}
	if f.error != nil && !isNull(f.error) {
		we, err := decodeError(f.error)
		if err != nil {
			return nil, err
		}
		resp.Error = we
	}
	return resp, nil
}

// errNotJSON says where data stops being JSON.
func errNotJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		err = errors.New("not one JSON value")
	}
	return fmt.Errorf("jsonrpc message: %v", err)
}

// wireFields are the raw values of a message's members; nil when absent.
type wireFields struct {
	version, id, method, params, result, error []byte
}

func (f *wireFields) read(data []byte) error {
	return members(data, func(name string, value []byte) {
		switch name {
		case "jsonrpc":
			f.version = value
		case "id":
			f.id = value
		case "method":
			f.method = value
		case "params":
			f.params = value
		case "result":
			f.result = value
		case "error":
			f.error = value
		}
	})
}

// decodeError is a response's error object.
func decodeError(raw []byte) (*jsonrpc.Error, error) {
	var e jsonrpc.Error
	var err error
	merr := members(raw, func(name string, value []byte) {
		switch {
		case err != nil || isNull(value):
		case name == "code":
			if e.Code, err = strconv.ParseInt(string(value), 10, 64); err != nil {
				err = fmt.Errorf("jsonrpc message: error code %s is not an integer", value)
			}
		case name == "message":
			var ok bool
			if e.Message, ok = unquote(value); !ok {
				err = fmt.Errorf("jsonrpc message: error message %s is not a string", value)
			}
		case name == "data":
			e.Data = value
		}
	})
	if merr != nil {
		return nil, merr
	}
	return &e, err
}

// members calls f with each member of the object data, which is valid
// JSON; a name that is not valid UTF-8 is passed as "".
func members(data []byte, f func(name string, value []byte)) error {
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return fmt.Errorf("jsonrpc message: %s is not an object", data)
	}
	i = skipSpace(data, i+1)
	for data[i] != '}' {
		end := skipValue(data, i)
		name, _ := unquote(data[i:end])
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // ':'
		end = skipValue(data, i)
		f(name, data[i:end])
		i = skipSpace(data, end)
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return nil
}

// decodeID is a request id: absent or null, a number or a string.
func decodeID(raw []byte) (jsonrpc.ID, error) {
	switch {
	case raw == nil || isNull(raw):
		return jsonrpc.ID{}, nil
	case raw[0] == '"':
		s, _ := unquote(raw)
		return jsonrpc.MakeID(s)
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("jsonrpc message: id %s: %v", raw, err)
		}
		return jsonrpc.MakeID(n)
	}
	return jsonrpc.ID{}, fmt.Errorf("jsonrpc message: id %s is neither a number nor a string", raw)
}

func isNull(raw []byte) bool { return string(raw) == "null" }

// unquote is the string a JSON string literal holds; ok is false when
// raw is not a string.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// skipSpace is the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue is the index just past the value that starts at i, in data
// that is valid JSON.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString is the index just past the string literal at i.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}
