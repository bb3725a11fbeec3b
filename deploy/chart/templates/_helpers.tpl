{{/* Name of the chart, overridable. */}}
{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every object: the release name, or release-chart when the release name lacks the chart's. */}}
{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "svc.server" -}}{{ include "svc.fullname" . | trunc 56 | trimSuffix "-" }}-server{{- end }}
{{- define "svc.operator" -}}{{ include "svc.fullname" . | trunc 54 | trimSuffix "-" }}-operator{{- end }}
{{/* The operator's sharding mode: operator.sharding, else app with more than one replica, else off. */}}
{{- define "svc.operatorSharding" -}}
{{- if .Values.operator.sharding }}{{ .Values.operator.sharding }}{{ else if gt (int .Values.operator.replicas) 1 }}app{{ else }}off{{ end }}
{{- end }}
{{- define "svc.secret" -}}{{ include "svc.fullname" . | trunc 55 | trimSuffix "-" }}-secrets{{- end }}

{{/* Labels of every object. */}}
{{- define "svc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "svc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component (server or operator): pass (list $ "server"). */}}
{{- define "svc.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "svc.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* The image reference: repository@digest when a digest is given, else repository:tag. */}}
{{- define "svc.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end }}

{{/* The operator's ServiceAccount as a username (what the server accepts after a TokenReview). */}}
{{- define "svc.operatorUser" -}}
system:serviceaccount:{{ .Release.Namespace }}:{{ include "svc.operator" . }}
{{- end }}

{{/* Whether the server runs on PostgreSQL (else SQLite on a PersistentVolumeClaim). */}}
{{- define "svc.postgres" -}}
{{- if or .Values.database.url .Values.database.existingSecret }}true{{ end }}
{{- end }}

{{/* Container securityContext of both components: non-root, read-only root filesystem, nothing extra. */}}
{{- define "svc.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Pod securityContext of both components. */}}
{{- define "svc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Environment shared by both components. */}}
{{- define "svc.commonEnv" -}}
- name: SVC_MGMT_KUBECONFIG
  value: in-cluster
- name: SVC_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: SVC_OUTBOUND_SCOPE
  value: {{ .Values.outboundScope | quote }}
- name: SVC_DATA_DIR
  value: /var/lib/svc
- name: HOME
  value: /home/svc
{{- if .Values.publicURL }}
- name: SVC_PUBLIC_URL
  value: {{ .Values.publicURL | quote }}
{{- end }}
{{- end }}

{{/* Writable directories under a read-only root filesystem (volumes; the server's data volume is separate). */}}
{{- define "svc.scratchVolumes" -}}
- name: tmp
  emptyDir: {}
- name: home
  emptyDir: {}
{{- end }}
{{- define "svc.scratchMounts" -}}
- name: tmp
  mountPath: /tmp
- name: home
  mountPath: /home/svc
- name: data
  mountPath: /var/lib/svc
{{- end }}
