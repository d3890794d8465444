{{- define "rootward.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "rootward.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "rootward.labels" -}}
app.kubernetes.io/name: {{ include "rootward.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "rootward.selector" -}}
app.kubernetes.io/name: {{ include "rootward.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "rootward.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "rootward.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "rootward.fullname" .)) -}}
{{- end -}}

{{/* Environment shared by every role: database URL and secrets from Secrets, config file path. */}}
{{- define "rootward.env" -}}
- name: ROOTWARD_CONFIG
  value: /etc/rootward/rootward.yaml
- name: ROOTWARD_DATA_DIR
  value: /var/lib/rootward
- name: ROOTWARD_DATABASE__URL
  valueFrom:
    secretKeyRef:
      {{- if .Values.database.existingSecret }}
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
      {{- else }}
      name: {{ include "rootward.secretName" . }}
      key: database-url
      {{- end }}
- name: ROOTWARD_INTAKE__TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "rootward.secretName" . }}
      key: intake-token
- name: ROOTWARD_LLM__API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "rootward.secretName" . }}
      key: llm-api-key
      optional: true
{{- end -}}

{{- define "rootward.volumes" -}}
- name: config
  configMap:
    name: {{ include "rootward.fullname" . }}-config
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- end -}}

{{- define "rootward.volumeMounts" -}}
- name: config
  mountPath: /etc/rootward
  readOnly: true
- name: data
  mountPath: /var/lib/rootward
- name: tmp
  mountPath: /tmp
{{- end -}}
