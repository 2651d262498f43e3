/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package validation

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/config/crd"
)

// Every rule is tested: each OpenAPI constraint and CEL rule of our CRDs
// must have a case of the tables that it refuses, and an accepted case that
// carries the field it constrains. The rejections are attributed to rules
// from the offline validator's answers, which expectBoth proves equal to the
// API server's. Status is left out: a create cannot set it.

// rule is one constraint of a CRD's schema, at a path such as
// spec.resources[*].apiVersion.
type rule struct {
	kind, path, keyword string
	// limit is the number a length or item constraint allows.
	limit int64
	// message is a CEL rule's message, or its rule when it has none.
	message string
}

func (r rule) String() string {
	if r.message != "" {
		return fmt.Sprintf("%s %s %s %q", r.kind, r.path, r.keyword, r.message)
	}
	return fmt.Sprintf("%s %s %s", r.kind, r.path, r.keyword)
}

// coverage records what the tables' cases exercised.
var coverage = struct {
	sync.Mutex
	rejected map[rule]bool
	accepted []*unstructured.Unstructured
	rejects  []observed
}{rejected: map[rule]bool{}}

type observed struct {
	kind string
	err  *field.Error
}

// recordCase notes a case's offline answer for the coverage check.
func recordCase(obj *unstructured.Unstructured, errs field.ErrorList) {
	coverage.Lock()
	defer coverage.Unlock()
	if len(errs) == 0 {
		coverage.accepted = append(coverage.accepted, obj)
		return
	}
	for _, e := range errs {
		coverage.rejects = append(coverage.rejects, observed{kind: obj.GetKind(), err: e})
	}
}

var _ = ReportAfterSuite("every rule of the CRDs has a refused and an accepted case", func(report Report) {
	for _, spec := range report.SpecReports {
		if spec.State.Is(types.SpecStateSkipped | types.SpecStatePending) {
			return // a focused run cannot cover every rule
		}
	}
	rules, err := crdRules()
	if err != nil {
		Fail(err.Error())
	}
	var missing []string
	for _, r := range rules {
		kinds := kindsSharing(rules, r)
		if !refused(r, kinds) {
			missing = append(missing, "no case refused by "+r.String())
		}
		if !carried(r, kinds) && !strings.Contains(r.path, "generateName") {
			// Any generateName is refused: no accepted case can carry one.
			missing = append(missing, "no accepted case carries "+r.String())
		}
	}
	if len(missing) > 0 {
		Fail(fmt.Sprintf("%d of %d rules lack cases:\n%s", len(missing), len(rules), strings.Join(missing, "\n")))
	}
})

// crdRules reads every rule of the CRDs built into the binaries.
func crdRules() ([]rule, error) {
	var rules []rule
	err := fs.WalkDir(crd.Bases, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(crd.Bases, path)
		if err != nil {
			return err
		}
		c := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, c); err != nil {
			return err
		}
		for _, v := range c.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			for name, prop := range v.Schema.OpenAPIV3Schema.Properties {
				if name == "spec" {
					rules = append(rules, schemaRules(c.Spec.Names.Kind, name, &prop)...)
				}
			}
		}
		return nil
	})
	return rules, err
}

// schemaRules lists the constraints of s, at path, and of everything below it.
func schemaRules(kind, path string, s *apiextensionsv1.JSONSchemaProps) []rule {
	var out []rule
	add := func(keyword string, present bool) {
		if present {
			out = append(out, rule{kind: kind, path: path, keyword: keyword})
		}
	}
	limit := func(keyword string, n *int64) {
		if n != nil {
			out = append(out, rule{kind: kind, path: path, keyword: keyword, limit: *n})
		}
	}
	limit("maxLength", s.MaxLength)
	limit("minLength", s.MinLength)
	limit("maxItems", s.MaxItems)
	limit("minItems", s.MinItems)
	limit("maxProperties", s.MaxProperties)
	limit("minProperties", s.MinProperties)
	add("pattern", s.Pattern != "")
	add("enum", len(s.Enum) > 0)
	add("minimum", s.Minimum != nil)
	add("maximum", s.Maximum != nil)
	add("format", s.Format != "" && s.Format != "int32" && s.Format != "int64")
	add("listType="+ptrString(s.XListType), s.XListType != nil && *s.XListType != "atomic")
	for _, name := range s.Required {
		out = append(out, rule{kind: kind, path: path + "." + name, keyword: "required"})
	}
	for _, v := range s.XValidations {
		msg := v.Message
		if msg == "" {
			msg = v.Rule
		}
		out = append(out, rule{kind: kind, path: path + strings.TrimSuffix(v.FieldPath, "."), keyword: "rule", message: msg})
	}
	for name, prop := range s.Properties {
		out = append(out, schemaRules(kind, path+"."+name, &prop)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		out = append(out, schemaRules(kind, path+"[*]", s.Items.Schema)...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		out = append(out, schemaRules(kind, path+"[*]", s.AdditionalProperties.Schema)...)
	}
	return out
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var index = regexp.MustCompile(`\[[^\]]*\]`)

// normalize writes a field path of an error as a rule's path: indexes and keys as [*].
func normalize(path string) string { return index.ReplaceAllString(path, "[*]") }

// kindsSharing are the kinds whose cases count for r: its own, and for a CEL
// rule, the other kind of set when it carries the same rule at the same path
// (the two share their spec's Go type, and its markers).
func kindsSharing(rules []rule, r rule) []string {
	kinds := []string{r.kind}
	if r.keyword != "rule" {
		return kinds
	}
	for _, o := range rules {
		if o.kind != r.kind && o.path == r.path && o.keyword == r.keyword && o.message == r.message {
			kinds = append(kinds, o.kind)
		}
	}
	return kinds
}

// refused reports whether a case of one of kinds was refused by r.
func refused(r rule, kinds []string) bool {
	coverage.Lock()
	defer coverage.Unlock()
	for _, o := range coverage.rejects {
		if slices.Contains(kinds, o.kind) && refusedBy(o.err, r) {
			return true
		}
	}
	return false
}

// refusedBy reports whether e is r's refusal: a CEL rule's message at its
// path (whatever reason the rule gives), or a constraint's error at its path;
// a duplicate in a list is reported at the item.
func refusedBy(e *field.Error, r rule) bool {
	path := normalize(e.Field)
	if r.keyword == "rule" {
		return path == r.path && strings.Contains(e.Detail, r.message)
	}
	if strings.HasPrefix(r.keyword, "listType=") {
		return path == r.path+"[*]" && matchesKeyword(keywordOf(e), r.keyword)
	}
	return path == r.path && matchesKeyword(keywordOf(e), r.keyword)
}

// matchesKeyword reports whether an error's keyword is the rule's.
func matchesKeyword(got, keyword string) bool {
	return got == keyword || got == "listType" && strings.HasPrefix(keyword, "listType=")
}

// keywordOf tells which kind of constraint produced an error, from its type
// and the wording apiextensions gives it.
func keywordOf(e *field.Error) string {
	switch e.Type {
	case field.ErrorTypeRequired:
		return "required"
	case field.ErrorTypeTooLong:
		return "maxLength"
	case field.ErrorTypeTooMany:
		if strings.Contains(e.Detail, "properties") {
			return "maxProperties"
		}
		return "maxItems"
	case field.ErrorTypeNotSupported:
		return "enum"
	case field.ErrorTypeDuplicate:
		return "listType"
	}
	for prefix, keyword := range map[string]string{
		"should be at least": "minLength", "should have at least": "minItems", "should match": "pattern",
		"should be greater than or equal to": "minimum", "should be less than or equal to": "maximum",
		"in body must be of type": "format", "must have at least": "minProperties",
	} {
		if strings.Contains(e.Detail, prefix) {
			if keyword == "minLength" && strings.Contains(e.Detail, "items") {
				return "minItems"
			}
			return keyword
		}
	}
	return "rule"
}

// carried reports whether an accepted case of one of kinds has a value at
// the rule's path (for required, at its parent).
func carried(r rule, kinds []string) bool {
	path := r.path
	if r.keyword == "required" {
		path = path[:strings.LastIndex(path, ".")]
	}
	segments := strings.Split(strings.ReplaceAll(path, "[*]", ".[*]"), ".")
	coverage.Lock()
	defer coverage.Unlock()
	return slices.ContainsFunc(coverage.accepted, func(obj *unstructured.Unstructured) bool {
		return slices.Contains(kinds, obj.GetKind()) && present(obj.Object, segments)
	})
}

func present(value any, segments []string) bool {
	if len(segments) == 0 {
		return true
	}
	switch v := value.(type) {
	case map[string]any:
		if segments[0] == "[*]" {
			for _, item := range v {
				if present(item, segments[1:]) {
					return true
				}
			}
			return false
		}
		item, ok := v[segments[0]]
		return ok && present(item, segments[1:])
	case []any:
		if segments[0] != "[*]" {
			return false
		}
		return slices.ContainsFunc(v, func(item any) bool { return present(item, segments[1:]) })
	}
	return false
}
