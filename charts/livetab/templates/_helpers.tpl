{{/* Names, labels, images and the pieces every pod shares. */}}
{{- define "livetab.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "livetab.labels" -}}
app.kubernetes.io/name: livetab
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "livetab.selector" -}}
app.kubernetes.io/name: livetab
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* An image reference, by digest when one is given: (dict "image" .Values.image) */}}
{{- define "livetab.image" -}}
{{- if .image.digest -}}{{ .image.repository }}@{{ .image.digest }}{{- else -}}{{ .image.repository }}:{{ .image.tag }}{{- end -}}
{{- end -}}

{{/* The topic registry (files/topics.json, written by `livetab topics --chart`). */}}
{{- define "livetab.registry" -}}
{{ .Files.Get "files/topics.json" }}
{{- end -}}

{{- define "livetab.env" -}}
- name: LIVETAB_KAFKA__BOOTSTRAP_SERVERS
  value: {{ .Values.kafka.bootstrapServers | quote }}
- name: LIVETAB_STORE__URL
  valueFrom:
    secretKeyRef: {name: {{ .Values.postgres.secretName }}, key: {{ .Values.postgres.secretKey }}}
- name: LIVETAB_HEALTH__HOST
  value: "0.0.0.0"
- name: LIVETAB_HEALTH__PORT
  value: "8081"
{{- if .Values.telemetry.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .Values.telemetry.otlpEndpoint | quote }}
{{- end }}
- name: OTEL_SERVICE_NAME
  valueFrom:
    fieldRef: {fieldPath: "metadata.labels['app.kubernetes.io/component']"}
{{- end -}}

{{- define "livetab.volumeMounts" -}}
- {name: settings, mountPath: /etc/livetab, readOnly: true}
- {name: tmp, mountPath: /tmp}
- {name: data, mountPath: /var/lib/livetab}
{{- end -}}

{{- define "livetab.volumes" -}}
- name: settings
  configMap: {name: {{ include "livetab.fullname" . }}-settings}
{{- include "livetab.scratch" . }}
{{- end -}}

{{- define "livetab.hookVolumes" -}}
- name: settings
  configMap: {name: {{ include "livetab.fullname" . }}-settings-hooks}
{{- include "livetab.scratch" . }}
{{- end -}}

{{- define "livetab.scratch" }}
- name: tmp
  emptyDir: {sizeLimit: 1Gi}
- name: data
  emptyDir: {sizeLimit: 10Gi}
{{- end -}}

{{- define "livetab.probes" -}}
livenessProbe:
  httpGet: {path: /healthz, port: {{ .port }}}
  initialDelaySeconds: 10
  periodSeconds: 10
  failureThreshold: 3
readinessProbe:
  httpGet: {path: /readyz, port: {{ .port }}}
  periodSeconds: 5
  failureThreshold: 3
{{- end -}}
