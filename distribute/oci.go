// Package distribute publishes and fetches plugins: signing them
// (sign.go) and OCI registries (oci.go). Only the CLI uses it, so oras and
// the distribution libraries stay out of the kernel's import graph.
package distribute

import (
	"context"
	"encoding/json"
	"errors"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/signature"
)

// Plugins in an OCI registry, through oras-go. A plugin is an OCI image
// manifest (version 1.1) with artifactType ArtifactType, the empty config,
// the .wasm as a WasmMediaType layer and its minisign signature, when
// signed, as a SignatureMediaType layer; the manifest annotation
// AnnotationPlugin names the plugin. Any OCI 1.1 registry stores it, and
// the oras CLI can push one too (docs/signing.md).
const (
	ArtifactType       = "application/vnd.wasmwright.plugin.v1"
	WasmMediaType      = "application/wasm"
	SignatureMediaType = "application/vnd.wasmwright.plugin.signature.v1+minisign"
	AnnotationPlugin   = "dev.wasmwright.plugin.name"
)

// Bounds on what a pull reads, before it reads it.
const (
	maxManifestBytes  = 1 << 20
	maxWasmBytes      = 256 << 20
	maxSignatureBytes = 64 << 10
)

// RegistryOptions say how to reach a registry.
type RegistryOptions struct {
	// PlainHTTP speaks HTTP instead of HTTPS (a registry on loopback).
	PlainHTTP bool
}

// PulledPlugin is a plugin fetched from a registry, not yet verified.
type PulledPlugin struct {
	Name      string
	Digest    string // the manifest's
	Wasm, Sig []byte // Sig is nil when the artifact carries none
}

// repository opens ref (registry/repository:tag or @digest) with the
// credentials of the docker config, when there are any.
func repository(ref string, opts RegistryOptions) (*remote.Repository, error) {
	repo, err := remote.NewRepository(ref)
	if err != nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%q is not a registry reference: write registry/repository:tag, like localhost:5000/plugins/extract_links:1.0.0", ref)
	}
	if repo.Reference.Reference == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%q names no tag or digest: add :TAG or @sha256:DIGEST", ref)
	}
	repo.PlainHTTP = opts.PlainHTTP
	client := &auth.Client{Client: retry.DefaultClient, Cache: auth.NewCache()}
	if store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{}); err == nil {
		client.Credential = credentials.Credential(store)
	}
	repo.Client = client
	return repo, nil
}

// registryError turns an oras error into a coded one.
func registryError(ref string, err error) error {
	switch {
	case errors.Is(err, errdef.ErrNotFound):
		return abi.Errorf(abi.CodeNotFound, "%s: not in the registry: check the repository and tag", ref)
	case errors.Is(err, content.ErrMismatchedDigest), errors.Is(err, content.ErrTrailingData), errors.Is(err, content.ErrInvalidDescriptorSize):
		return alteredBlob(ref, "")
	case errors.Is(err, errdef.ErrSizeExceedsLimit):
		return abi.Errorf(abi.CodeResourceLimit, "%s: %v: this is not a wasmwright plugin", ref, err)
	}
	return abi.Errorf(abi.CodeUnreachable, "%s: %v: check the registry address, --plain-http for a registry without TLS, and credentials (docker login)", ref, err)
}

// alteredBlob is the refusal of content that does not match its digest.
// A registry keeps a blob under its digest: pushing the same file again,
// under this tag or another, uploads nothing and leaves the damaged bytes
// in place, so the advice is what changes the digest or the stored bytes.
func alteredBlob(ref, digest string) error {
	which := "a blob"
	if digest != "" {
		which = "blob " + digest
	}
	return abi.Errorf(abi.CodeRefused, "%s: the registry served %s with content that does not match its digest (altered in the registry's storage): nothing was installed. "+
		"Pushing the same file again changes nothing (the registry keeps the blob it has under that digest, whatever the tag). "+
		"Ask the registry's operator to delete the damaged blob (or the repository) before it is pushed again, or its publisher for a new build (new bytes, a new digest, signed again) or a copy in another registry", ref, which).With("digest", digest)
}

// PushPlugin publishes a plugin (and its signature, when sig is not nil)
// to ref, and returns the manifest's digest.
func PushPlugin(ctx context.Context, ref, name string, wasm, sig []byte, opts RegistryOptions) (string, error) {
	if !abi.ValidID(name) {
		return "", abi.Errorf(abi.CodeInputInvalid, "plugin name %q: use letters, digits, _ and - only", name)
	}
	repo, err := repository(ref, opts)
	if err != nil {
		return "", err
	}
	layer := func(mediaType, title string, b []byte) (ocispec.Descriptor, error) {
		d, err := oras.PushBytes(ctx, repo, mediaType, b)
		d.Annotations = map[string]string{ocispec.AnnotationTitle: title}
		return d, err
	}
	w, err := layer(WasmMediaType, name+".wasm", wasm)
	if err != nil {
		return "", registryError(ref, err)
	}
	layers := []ocispec.Descriptor{w}
	if sig != nil {
		s, err := layer(SignatureMediaType, name+".wasm"+signature.Ext, sig)
		if err != nil {
			return "", registryError(ref, err)
		}
		layers = append(layers, s)
	}
	m, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		Layers: layers, ManifestAnnotations: map[string]string{AnnotationPlugin: name},
	})
	if err == nil && repo.Reference.ValidateReferenceAsDigest() != nil {
		err = repo.Tag(ctx, m, repo.Reference.Reference)
	}
	if err != nil {
		return "", registryError(ref, err)
	}
	return m.Digest.String(), nil
}

// PullPlugin fetches the plugin at ref. Every blob is checked against its
// digest as it is read; the signature is not checked here (VerifySignature).
func PullPlugin(ctx context.Context, ref string, opts RegistryOptions) (*PulledPlugin, error) {
	repo, err := repository(ref, opts)
	if err != nil {
		return nil, err
	}
	desc, raw, err := oras.FetchBytes(ctx, repo, repo.Reference.Reference, oras.FetchBytesOptions{MaxBytes: maxManifestBytes})
	if err != nil {
		return nil, registryError(ref, err)
	}
	var m ocispec.Manifest
	if desc.MediaType != ocispec.MediaTypeImageManifest || json.Unmarshal(raw, &m) != nil || m.ArtifactType != ArtifactType {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%s is not a wasmwright plugin (media type %s, artifact type %q; want %s): push plugins with `wasmwright plugins push`", ref, desc.MediaType, m.ArtifactType, ArtifactType)
	}
	out := &PulledPlugin{Name: m.Annotations[AnnotationPlugin], Digest: desc.Digest.String()}
	if !abi.ValidID(out.Name) {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%s: annotation %s = %q is not a plugin name (letters, digits, _ and - only)", ref, AnnotationPlugin, out.Name)
	}
	for _, l := range m.Layers {
		dst, max := &out.Wasm, int64(maxWasmBytes)
		switch l.MediaType {
		case WasmMediaType:
		case SignatureMediaType:
			dst, max = &out.Sig, maxSignatureBytes
		default:
			continue
		}
		if *dst != nil || l.Size > max {
			return nil, abi.Errorf(abi.CodeInputInvalid, "%s: more than one %s layer, or one over %d bytes: not a wasmwright plugin", ref, l.MediaType, max)
		}
		if *dst, err = content.FetchAll(ctx, repo, l); err != nil {
			if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, content.ErrInvalidDescriptorSize) {
				return nil, alteredBlob(ref, l.Digest.String())
			}
			return nil, registryError(ref, err)
		}
	}
	if out.Wasm == nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%s has no %s layer: not a wasmwright plugin", ref, WasmMediaType)
	}
	return out, nil
}
