package distribute

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"aead.dev/minisign"

	"github.com/wasmwright/wasmwright/host/signature"
)

// Sign signs wasm (the file name goes in the signed comment, as minisign
// does) and returns the text of the .minisig sidecar.
func Sign(key minisign.PrivateKey, wasm []byte, file string) []byte {
	r := minisign.NewReader(bytes.NewReader(wasm))
	io.Copy(io.Discard, r) // hashes wasm: minisign's prehashed form, its default
	trusted := "timestamp:" + strconv.FormatInt(time.Now().Unix(), 10) + "\tfile:" + filepath.Base(file) + "\thashed"
	return r.SignWithComments(key, trusted, "signature from wasmwright secret key "+signature.KeyID(key.ID()))
}
