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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WindowKind says whether an open window allows applies or denies them.
// +kubebuilder:validation:Enum=Allow;Deny
type WindowKind string

const (
	// WindowAllow windows, where a set declares any, are the only times it
	// applies and prunes.
	WindowAllow WindowKind = "Allow"
	// WindowDeny windows are times the set applies and prunes nothing,
	// whatever Allow windows say.
	WindowDeny WindowKind = "Deny"
)

// Window is a delivery window, as Argo CD writes sync windows: it opens at
// each time its schedule names, in its time zone, and stays open for its
// duration.
type Window struct {
	// kind is Allow or Deny.
	// +required
	Kind WindowKind `json:"kind,omitempty"`

	// schedule is a cron expression of five fields (minute hour
	// day-of-month month day-of-week), e.g. "0 22 * * 5", or a descriptor
	// such as @daily; it is read in timeZone. A wall time a change of
	// daylight saving time skips opens no window that day; one it passes
	// twice opens the window twice.
	// +kubebuilder:validation:MinLength=5
	// +kubebuilder:validation:MaxLength=128
	// +required
	Schedule string `json:"schedule,omitempty"`

	// duration is how long the window stays open after each opening, in
	// elapsed time, e.g. 1h or 58h; at most 744h (31 days).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('744h')",message="duration must be positive and at most 744h (31 days), such as 1h or 58h",reason=FieldValueInvalid
	// +required
	Duration *metav1.Duration `json:"duration,omitempty"` //nolint:kubeapilinter // A duration string such as 1h, as Argo CD writes sync windows.

	// timeZone is the IANA time zone the schedule is read in, e.g.
	// Europe/Berlin; UTC when omitted. Admission refuses a name the time
	// zone database does not know.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$`
	// +optional
	TimeZone string `json:"timeZone,omitempty"`
}

// WindowsAnnotation on a Namespace holds windows, written as spec.windows
// in JSON, that hold every set in it and every ClusterApplySet acting as a
// ServiceAccount of it, besides the set's own: a set cannot declare them
// away. It is an annotation because cron expressions are no label values.
const WindowsAnnotation = "apply.applyset.dev/windows"

// WindowOverrideAnnotation on a set lets one apply of the plan it names,
// by the digest a held set shows in status.plan.digest, through while its
// windows hold it: what a source declares can change without a generation,
// so only the digest says what was reviewed. Once used it is spent, however
// the apply ends. Writing it needs the verb approve on the set, as
// approving does (config/policy).
const WindowOverrideAnnotation = "apply.applyset.dev/window-override"

// WindowStatus is where a set stands with its delivery windows.
type WindowStatus struct {
	// held is true while the windows hold the set: it applies and prunes nothing.
	// +optional
	Held *bool `json:"held,omitempty"`

	// window names the window that decides, as it was written.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Window string `json:"window,omitempty"`

	// nextChange is when the windows next let the set apply (when held) or
	// hold it (when not), in RFC 3339 in that window's time zone; unset
	// when no change is within reach.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +optional
	NextChange string `json:"nextChange,omitempty"`

	// overriddenPlan is the digest of the last plan an override (the
	// window-override annotation) let through.
	// +kubebuilder:validation:MinLength=71
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	OverriddenPlan string `json:"overriddenPlan,omitempty"`
}
