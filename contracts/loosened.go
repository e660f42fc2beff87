// This file records the earlier embedded contents that the current
// embedded contracts only loosen.

package contracts

import "slices"

// loosened lists, per embedded contract, the digests ([Registry.Digest]) of
// earlier embedded contents that the current one only loosens: every
// artifact an earlier content accepted, the current one accepts too. A
// project's contracts lock that names one of them is not out of date.
//
// The v1 contracts were reduced to seed 004's keyword subset: uniqueItems
// (adr, fact, finding, plan, requirement, tracker-item) and if/then
// (evidence, shared by compliance-check; risk) were removed. fact.v1 then
// gained the status "retired" and the optional retiredReason.
var loosened = map[string][]string{
	"adr.v1":              {"sha256:585a937241a863872bf9176206a9e1c0464a4eab7b9f3132c963154d786d42af"},
	"compliance-check.v1": {"sha256:98eabd51fc151fce82b5d29cff26dc7b04d07505743e4e4e7c42f27f49dfcf03"},
	"fact.v1": {
		"sha256:0f426dbff6e681fb31a18a569bd8630520674fb8d4dd57556beaae6f9552cff3",
		// Before status "retired" and retiredReason (memory retire) were added.
		"sha256:c67bfa9c1a70ffe05e432840c63d47f5ec1e4b60802cbe46032021eecc1685d2",
	},
	"finding.v1":      {"sha256:c78cb92c88da6279358f234eaa5f1bf6fec2fd6250548c6006140c09cd7cad6e"},
	"plan.v1":         {"sha256:15693f1f67a984b63fc124b1f19f608a2ca93fef6cfb58d7018dd0a4adab2e35"},
	"requirement.v1":  {"sha256:00857dd5946c0fa7e37d300f567215754bcc2bb416f9afa1d46a6f2946f4d5f8"},
	"risk.v1":         {"sha256:b798bb8f7f1016b0f8ed92293a531fd5351235f0cef31cc42fcd96c6775ecbe2"},
	"tracker-item.v1": {"sha256:70c16d37af4b8da659ffe76a478e55b4f6cc13f03c2f6dd63b07546f69af6d9a"},
}

// AcceptsLock reports whether digest, as a contracts lock records it, is
// the content of contract id today, or, for an embedded contract, an
// earlier embedded content that today's only loosens.
func (r *Registry) AcceptsLock(id, digest string) (bool, error) {
	d, err := r.Digest(id)
	if err != nil {
		return false, err
	}
	if d == digest {
		return true, nil
	}
	return r.Embedded(id) && slices.Contains(loosened[id], digest), nil
}
