package abi

import (
	"errors"
	"fmt"
)

// Code is one of a closed set of error codes. Each reaches agents and users
// with a message that says what to do next.
type Code string

const (
	CodeInputInvalid    Code = "input_invalid"      // bad arguments: fix them and retry
	CodeNotFound        Code = "not_found"          // unknown tool, plugin, credential...
	CodeNotAvailable    Code = "not_available"      // the service is missing on this host (browser not installed...)
	CodeRefused         Code = "refused"            // a grant or policy forbids it
	CodeTimeout         Code = "timeout"            // a deadline passed
	CodeExecutionFailed Code = "execution_failed"   // the action ran and failed
	CodePluginFailed    Code = "plugin_failed"      // the plugin trapped, panicked or broke the ABI
	CodeResourceLimit   Code = "resource_limit"     // memory or size limit reached
	CodeABIMismatch     Code = "abi_mismatch"       // plugin built for another ABI
	CodeNoSession       Code = "no_session"         // browser: call browser_navigate first
	CodeStaleRef        Code = "stale_ref"          // browser: take a new snapshot
	CodeNotInteractable Code = "not_interactable"   // browser: element hidden or disabled
	CodeNavTimeout      Code = "navigation_timeout" // browser: page did not load in time
	CodeDialogGone      Code = "dialog_gone"        // browser: no dialog is open
	CodePathRefused     Code = "path_refused"       // a path outside its confined folder
	CodeBrowserCrashed  Code = "browser_crashed"    // the next call gets a fresh session
	CodeBotWall         Code = "bot_wall"           // a block page; the page was not read
	CodeSecretLeak      Code = "secret_leak"        // a result held a raw secret and was withheld
	CodeUnreachable     Code = "unreachable"        // the name does not resolve or nothing answers: check the URL
)

// codes is the closed set, in documentation order. Unexported so that no
// importer can widen it; Codes returns a copy.
var codes = [...]Code{
	CodeInputInvalid, CodeNotFound, CodeNotAvailable, CodeRefused, CodeTimeout,
	CodeExecutionFailed, CodePluginFailed, CodeResourceLimit, CodeABIMismatch,
	CodeNoSession, CodeStaleRef, CodeNotInteractable, CodeNavTimeout, CodeDialogGone,
	CodePathRefused, CodeBrowserCrashed, CodeBotWall, CodeSecretLeak, CodeUnreachable,
}

// Codes is the closed set, in documentation order (a fresh copy).
func Codes() []Code { return append([]Code(nil), codes[:]...) }

// Known reports whether c is in the closed set.
func (c Code) Known() bool {
	for _, k := range codes {
		if k == c {
			return true
		}
	}
	return false
}

// Error is the one error shape on the wire, from plugins, host functions and
// the host itself. Message is safe to show an agent; it never holds secrets.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Details carries structured facts (the missing grant, the vendor of a
	// wall...). Optional.
	Details map[string]string `json:"details,omitempty"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf builds an *Error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns a copy of e with a detail added.
func (e *Error) With(key, value string) *Error {
	c := *e
	c.Details = make(map[string]string, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// AsError finds an *Error in err's chain, or wraps err as execution_failed.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeExecutionFailed, Message: err.Error()}
}
