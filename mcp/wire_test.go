package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireCases are messages decodeMessage must read as the SDK's
// jsonrpc.DecodeMessage does, refusals included.
var wireCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo hi"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"ping"}`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no such method","data":{"x":[1,"]}"]}}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
	` { "params" : [1, {"a": "}"}] , "method":"m\u00e9thode", "id": -2.5e3, "jsonrpc" : "2.0" } `,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":3}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","id":{},"method":"m"}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"\u006dethod":"m"}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"`,
	`{"jsonrpc":"2.0","id":1,"method":"m"} {}`,
	`[]`,
	`"2.0"`,
	`null`,
	``,
}

func TestDecodeMessageAsSDK(t *testing.T) {
	for _, c := range wireCases {
		if diff := compareDecode([]byte(c)); diff != "" {
			t.Errorf("%s: %s", c, diff)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, c := range wireCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if diff := compareDecode(data); diff != "" {
			t.Fatalf("%q: %s", data, diff)
		}
	})
}

// compareDecode is how decodeMessage's reading of data differs from the
// SDK's, or "".
func compareDecode(data []byte) string {
	want, werr := jsonrpc.DecodeMessage(data)
	got, gerr := decodeMessage(data)
	if gerr != nil && werr == nil && !json.Valid(data) {
		// DecodeMessage reads the first of several values, which the
		// SDK's stdio transport then refuses; decodeMessage refuses
		// them at once.
		return ""
	}
	if (werr != nil) != (gerr != nil) {
		return fmt.Sprintf("error %v, the SDK's %v", gerr, werr)
	}
	if werr != nil {
		return ""
	}
	return sameMessage(got, want)
}

func sameMessage(got, want jsonrpc.Message) string {
	switch w := want.(type) {
	case *jsonrpc.Request:
		g, ok := got.(*jsonrpc.Request)
		switch {
		case !ok:
			return fmt.Sprintf("%T, the SDK's a request", got)
		case g.ID != w.ID || g.Method != w.Method || !bytes.Equal(g.Params, w.Params):
			return fmt.Sprintf("request %v %q %s, the SDK's %v %q %s", g.ID.Raw(), g.Method, g.Params, w.ID.Raw(), w.Method, w.Params)
		}
	case *jsonrpc.Response:
		g, ok := got.(*jsonrpc.Response)
		switch {
		case !ok:
			return fmt.Sprintf("%T, the SDK's a response", got)
		case g.ID != w.ID || !bytes.Equal(g.Result, w.Result):
			return fmt.Sprintf("response %v %s, the SDK's %v %s", g.ID.Raw(), g.Result, w.ID.Raw(), w.Result)
		case (g.Error == nil) != (w.Error == nil):
			return fmt.Sprintf("response error %v, the SDK's %v", g.Error, w.Error)
		case g.Error != nil:
			var ge, we *jsonrpc.Error
			if !errors.As(g.Error, &ge) || !errors.As(w.Error, &we) || ge.Code != we.Code || ge.Message != we.Message || !bytes.Equal(ge.Data, we.Data) {
				return fmt.Sprintf("response error %#v, the SDK's %#v", g.Error, w.Error)
			}
		}
	}
	return ""
}
