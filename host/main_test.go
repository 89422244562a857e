package host

import (
	"os"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// TestMain runs the package's tests without a vault passphrase from the
// environment (the vault then keeps its key beside its file, in each
// test's own folder), once for all of them: a test that unset it itself
// (t.Setenv) could not run in parallel with the others.
func TestMain(m *testing.M) {
	os.Unsetenv(vault.PassphraseEnv)
	os.Exit(m.Run())
}
