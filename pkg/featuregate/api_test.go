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

package featuregate

import (
	"reflect"
	"testing"

	"k8s.io/utils/ptr"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

func TestFromAPI(t *testing.T) {
	in := []featuresv1alpha1.FeatureGate{
		{Name: "Color", PreRelease: featuresv1alpha1.Deprecated, Default: ptr.To(true), Enabled: ptr.To(false),
			FieldPaths: []string{".spec.color"}, DeprecationWarning: "use .spec.palette"},
		{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size", ".spec.scale"}},
	}
	want := []Gate{
		{Name: "Color", PreRelease: Deprecated, Default: ptr.To(true), Enabled: ptr.To(false),
			FieldPaths: []string{".spec.color"}, DeprecationWarning: "use .spec.palette"},
		{Name: "Size", PreRelease: Alpha, FieldPaths: []string{".spec.size", ".spec.scale"}},
	}
	if got := FromAPI(in); !reflect.DeepEqual(got, want) {
		t.Errorf("FromAPI() = %+v, want %+v", got, want)
	}
	if got := FromAPI(nil); got == nil || len(got) != 0 {
		t.Errorf("FromAPI(nil) = %#v, want an empty slice", got)
	}
}
