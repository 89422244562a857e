package jsonrpc

import "testing"

func TestAnswer(t *testing.T) {
	for _, c := range []struct {
		msg, result, err string
		ok               bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"a":1}}`, `{"a":1}`, "", true},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no such tool"}}`, "", "no such tool", true},
		{`{"jsonrpc":"2.0","id":8,"result":{}}`, "", "", false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "", "", false},
		{`not json`, "", "", false},
	} {
		res, ok, err := Answer([]byte(c.msg), 7)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if ok != c.ok || string(res) != c.result || gotErr != c.err {
			t.Errorf("Answer(%s) = %s, %v, %q; want %s, %v, %q", c.msg, res, ok, gotErr, c.result, c.ok, c.err)
		}
	}
}
