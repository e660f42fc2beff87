// This file defines the memory tools: memory_search, memory_write and
// memory_index, over package facts.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/foundryhq/foundry/facts"
)

type memorySearchArgs struct {
	Query string `json:"query"`
	Type  string `json:"type"`
	// Limit is a float64 because JSON Schema's integer admits 1.0 and
	// 1e1, which Go does not decode into an int; the schema has already
	// checked that it is a whole number from 1 to 25.
	Limit float64 `json:"limit"`
}

// factHit is one memory_search hit as structuredContent carries it. The
// fields are in the order of their names, as the server encodes a decoded
// object, so the answer reads the same whichever path encoded it.
type factHit struct {
	Body       string   `json:"body"`
	Confidence string   `json:"confidence"`
	Created    string   `json:"created,omitempty"`
	Expires    string   `json:"expires,omitempty"`
	ID         string   `json:"id"`
	Scope      string   `json:"scope"`
	Score      float64  `json:"score"`
	Source     string   `json:"source"`
	Tags       []string `json:"tags"`
	Title      string   `json:"title"`
	Type       string   `json:"type"`
}

type memorySearchResult struct {
	Active int       `json:"active"`
	Hits   []factHit `json:"hits"`
	Query  string    `json:"query"`
}

const factHitSchema = `{
	"type": "object",
	"properties": {
		"id": {"type": "string", "description": "fact id, fact-NNNN"},
		"type": {"type": "string"},
		"title": {"type": "string"},
		"body": {"type": "string"},
		"scope": {"type": "string"},
		"tags": {"type": "array", "items": {"type": "string"}},
		"confidence": {"type": "string"},
		"source": {"type": "string"},
		"created": {"type": "string"},
		"expires": {"type": "string"},
		"score": {"type": "number", "description": "BM25 relevance, higher is better"}
	},
	"required": ["id", "type", "title", "body", "scope", "tags", "confidence", "source", "score"]
}`

func (f *foundry) addMemorySearch(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "memory_search",
		Title: "Search project memory",
		Description: "Searches project memory (decisions, constraints, conventions, domain knowledge, risks, metrics, glossary) " +
			"and returns only the matching facts. Use this instead of reading files under .foundry/memory/: it is the token-cheap path. " +
			"Call it before planning, before proposing an architecture, and whenever the user refers to a past decision. " +
			"Keyword scoring, not semantic search: a fact phrased differently from your query may not surface; type and limit narrow, they do not broaden.",
		Scope:      ScopeReadMemory,
		Governance: Governance{AuditCategory: "memory.search"},
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		types := enumJSON(facts.Types)
		def := f.store.SearchLimit()
		in = schema(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "minLength": 1, "description": "Keywords describing what you need to know"},
				"type": {"type": "string", "enum": ` + types + `, "description": "Only facts of this type"},
				"limit": {"type": "integer", "minimum": 1, "maximum": 25, "description": "At most this many facts. Default comes from memoryRetrieval.maxFacts, which is ` + fmt.Sprint(def) + `"}
			},
			"required": ["query"],
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"query": {"type": "string"},
				"active": {"type": "integer", "description": "active facts in memory"},
				"hits": {"type": "array", "items": ` + factHitSchema + `}
			},
			"required": ["query", "active", "hits"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, in memorySearchArgs) (Output, error) {
		res, err := f.store.Search(ctx, facts.Query{Text: in.Query, Type: facts.Type(in.Type), Limit: int(in.Limit)})
		if err != nil {
			return Output{}, err
		}
		// The answer is redacted here, fact by fact from the cache, rather
		// than scanned whole by the server on every call.
		out := memorySearchResult{Query: redactText(res.Query), Active: res.Active, Hits: []factHit{}}
		for _, h := range res.Hits {
			hit := f.redacted.get(h.Fact).hit
			hit.Score = h.Score
			out.Hits = append(out.Hits, hit)
		}
		var text string
		if len(res.Hits) == 0 {
			text = redactText(res.Render())
		} else {
			text = res.RenderWith(func(fact facts.Fact) string { return f.redacted.get(fact).block })
		}
		return Output{Text: text, Structured: out, Redacted: true}, nil
	})
}

// redactCache keeps the redacted forms of the facts searches return, so a
// fact found by many searches is scanned for secrets once, not on every
// call. It is keyed by the fact's path and content, so an edited fact is
// redacted afresh; the redactor itself cannot change within a process.
type redactCache struct {
	mu sync.Mutex
	m  map[factKey]redactedFact
}

// redactCacheSize bounds the cache; past it an arbitrary entry makes room.
const redactCacheSize = 4096

type factKey struct {
	path, id, typ, title, body, scope, tags, confidence, source, created, expires string
}

type redactedFact struct {
	block string  // facts.RenderFact, redacted
	hit   factHit // without score, every string redacted
}

func (c *redactCache) get(f facts.Fact) redactedFact {
	k := factKey{f.Path, f.ID, string(f.Type), f.Title, f.Body, f.Scope, strings.Join(f.Tags, "\x00"),
		string(f.Confidence), f.Source, f.Created, f.Expires}
	c.mu.Lock()
	r, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return r
	}
	tags := make([]string, len(f.Tags))
	for i, t := range f.Tags {
		tags[i] = redactText(t)
	}
	r = redactedFact{
		block: redactText(facts.RenderFact(f)),
		hit: factHit{
			ID: redactText(f.ID), Type: redactText(string(f.Type)), Title: redactText(f.Title),
			Body: redactText(f.Body), Scope: redactText(f.Scope), Tags: tags,
			Confidence: redactText(string(f.Confidence)), Source: redactText(f.Source),
			Created: redactText(f.Created), Expires: redactText(f.Expires),
		},
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[factKey]redactedFact{}
	}
	if len(c.m) >= redactCacheSize {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = r
	return r
}

type memoryWriteArgs struct {
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Type       string   `json:"type"`
	Scope      string   `json:"scope"`
	Tags       []string `json:"tags"`
	Confidence string   `json:"confidence"`
	Source     string   `json:"source"`
	Expires    string   `json:"expires"`
	Supersedes string   `json:"supersedes"`
}

// indexFigures are the budget figures of INDEX.md.
type indexFigures struct {
	Active  int `json:"active"`
	Budget  int `json:"budget"`
	Listed  int `json:"listed"`
	Omitted int `json:"omitted"`
	Tokens  int `json:"tokens"`
}

func figures(r facts.IndexResult) indexFigures {
	return indexFigures{Listed: r.Listed, Active: r.Active, Omitted: r.Omitted, Tokens: r.Tokens, Budget: r.Budget}
}

const indexFiguresSchema = `{
	"type": "object",
	"properties": {
		"listed": {"type": "integer", "description": "facts with a line in INDEX.md"},
		"active": {"type": "integer", "description": "active facts in memory"},
		"omitted": {"type": "integer", "description": "active facts left out over budget"},
		"tokens": {"type": "integer", "description": "estimated tokens of INDEX.md"},
		"budget": {"type": "integer", "description": "token budget of INDEX.md"}
	},
	"required": ["listed", "active", "omitted", "tokens", "budget"]
}`

// memoryWriteResult's fields, and indexFigures', are in the order of their
// keys: memory_write's answer is encoded from it as it is (see the
// handler), and kept the bytes it had when the server encoded a decoded
// map, whose keys are sorted.
type memoryWriteResult struct {
	Action     string        `json:"action"`
	ID         string        `json:"id"`
	Index      *indexFigures `json:"index,omitempty"`
	Path       string        `json:"path"`
	Supersedes string        `json:"supersedes,omitempty"`
	Warnings   []string      `json:"warnings,omitempty"`
}

func (f *foundry) addMemoryWrite(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "memory_write",
		Title: "Store a durable fact",
		Description: "Stores one atomic durable fact in project memory. Call it when a decision, constraint, convention or risk has just been established. " +
			"It deduplicates against existing facts, assigns the id, maintains supersedes chains (the same title with a new body, or with another confidence, source, tags or expires, supersedes the old fact) " +
			"and rebuilds the memory index. Never write memory files by hand, and do not use it for transient session state. " +
			"A fact that contains a secret is refused.",
		Scope:      ScopeWriteMemory,
		Governance: Governance{AuditCategory: "memory.write"},
		Mutating:   true,
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		types := enumJSON(facts.Types)
		in = schema(`{
			"type": "object",
			"properties": {
				"title": {"type": "string", "minLength": 1, "maxLength": 80, "description": "States the fact itself, not the topic. Max 80 characters"},
				"body": {"type": "string", "minLength": 1, "description": "Max 120 words. For decision and risk, include Why: and How to apply: lines"},
				"type": {"type": "string", "enum": ` + types + `},
				"scope": {"type": "string", "description": "project | module:<name> | vertical:<name>. Defaults to project"},
				"tags": {"type": "array", "items": {"type": "string"}, "description": "Defaults to []"},
				"confidence": {"type": "string", "enum": ["high", "medium", "low"], "description": "Defaults to medium"},
				"source": {"type": "string", "description": "adr-0007 | conversation | code | external:<url>. Defaults to conversation"},
				"expires": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "YYYY-MM-DD after which the fact stops being loaded"},
				"supersedes": {"type": "string", "pattern": "^fact-[0-9]{4,}$", "description": "fact-NNNN this fact replaces, whatever its title: after a similar-title warning, the same write again with supersedes links the two"}
			},
			"required": ["title", "body", "type"],
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"action": {"type": "string", "enum": ["created", "unchanged"]},
				"id": {"type": "string", "description": "the new fact, or the one that already states it"},
				"path": {"type": "string"},
				"supersedes": {"type": "string"},
				"warnings": {"type": "array", "items": {"type": "string"}},
				"index": ` + indexFiguresSchema + `
			},
			"required": ["action", "id", "path"]
		}`)
		return in, out
	}, func(ctx context.Context, call *Call, in memoryWriteArgs) (Output, error) {
		snap := f.snapshot()
		res, err := f.store.Write(ctx, facts.WriteRequest{
			Title: in.Title, Body: in.Body, Type: facts.Type(in.Type), Scope: in.Scope, Tags: in.Tags,
			Confidence: facts.Confidence(in.Confidence), Source: in.Source, Expires: in.Expires,
			Supersedes: in.Supersedes,
		})
		if err != nil {
			return Output{}, err
		}
		// The answer is redacted here, as the server would (the text
		// whole, each string of the structured value; none of its keys is
		// one whose value redaction hides whatever it is), rather than
		// encoded, decoded, walked and encoded again by the server: a
		// warning quotes the title of a fact on disk, which a hand edit
		// may have given a secret.
		out := memoryWriteResult{Action: res.Action, ID: redactText(res.ID), Path: redactText(res.Path), Supersedes: redactText(res.Supersedes)}
		for _, w := range res.Warnings {
			out.Warnings = append(out.Warnings, redactText(w))
		}
		if res.Index.Content != nil { // INDEX.md was written
			idx := figures(res.Index)
			out.Index = &idx
		}
		var text strings.Builder
		text.WriteString(res.String() + "\n")
		for _, w := range res.Warnings {
			text.WriteString(w + "\n")
			call.Log(ctx, LogWarning, w)
		}
		for _, rw := range res.Rewritten {
			snap.rewritten(rw.Path, rw.Before)
			snap.wrote(rw.Path, rw.After)
		}
		if res.Index.Content != nil {
			snap.replaced(facts.IndexPath, res.Index.Replaced)
			snap.wrote(facts.IndexPath, res.Index.Content)
		}
		changed := []string{}
		if res.Action == facts.Created {
			changed = append(changed, res.Path)
			snap.wrote(res.Path, res.Content)
		}
		return Output{Text: redactText(text.String()), Structured: out, Changes: snap.changes(changed...), Redacted: true}, nil
	})
}

type memoryIndexResult struct {
	Path string `json:"path"`
	indexFigures
}

func (f *foundry) addMemoryIndex(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "memory_index",
		Title: "Rebuild the memory index",
		Description: "Rebuilds .foundry/memory/INDEX.md, the token-budgeted list of active facts, and reports budget usage. " +
			"Call it after editing facts by other means than memory_write (which rebuilds the index itself).",
		Scope:      ScopeWriteMemory,
		Governance: Governance{AuditCategory: "memory.index"},
		Mutating:   true,
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		in = noArguments
		out = schema(`{
			"type": "object",
			"properties": {
				"path": {"type": "string", "description": "INDEX.md, relative to the project root"},
				"listed": {"type": "integer"},
				"active": {"type": "integer"},
				"omitted": {"type": "integer"},
				"tokens": {"type": "integer"},
				"budget": {"type": "integer"}
			},
			"required": ["path", "listed", "active", "omitted", "tokens", "budget"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, _ struct{}) (Output, error) {
		snap := f.snapshot()
		res, err := f.store.RebuildIndex(ctx)
		if err != nil {
			return Output{}, err
		}
		snap.replaced(facts.IndexPath, res.Replaced)
		snap.wrote(facts.IndexPath, res.Content)
		// The text keeps the seed's absolute path; the data is
		// project-relative, as every path of structured results is.
		return Output{
			Text:       fmt.Sprintf("Rebuilt %s\n%s\n", f.store.IndexFile(), res.Summary()),
			Structured: memoryIndexResult{Path: facts.IndexPath, indexFigures: figures(res)},
			Changes:    snap.changes(),
		}, nil
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
