'use strict';

// What each agent sent its collector, as it can be compared between two
// runs: ids, timestamps, durations, process ids, runtime ids, hostnames and
// ephemeral ports dropped; names, kinds, resources, http attributes and
// tags, status codes, errors, parents (by name) kept.  Spans are sorted:
// the order a batch is flushed in is not what a user reads.

const DATE = /\b[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\b/g;
const PORT = /(127\.0\.0\.1|localhost):\d+/g;

// The bytes of a response, the Date value aside.
const bytes = (raw) => raw.replace(/(\r\nDate: )[^\r]*/gi, '$1<date>');

const text = (s) => (typeof s === 'string' ? s.replace(DATE, '<date>').replace(PORT, '$1:<port>') : s);
const byJson = (a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0);

// Timings among tags and metrics (AppSec's WAF durations, ...).
const DURATION = /duration/;

// An object's entries, sorted, without the keys `drop` names and timings,
// strings normalised.
function keep(obj, drop) {
  const out = {};
  for (const k of Object.keys(obj || {}).sort()) {
    if (!drop.has(k) && !DURATION.test(k)) out[k] = text(obj[k]);
  }
  return out;
}

// ---- dd-trace: msgpack traces, PUT /v0.4/traces ------------------------------
// (The destination ports: the app's upstream, for its outgoing request.)
const DD_PORTS = ['network.client.port', 'network.destination.port', 'tcp.local.port', 'tcp.remote.port'];
const DD_META_DROP = new Set(['runtime-id', '_dd.p.tid', ...DD_PORTS]);
const DD_METRICS_DROP = new Set(['process_id', ...DD_PORTS]);

function ddtrace(requests) {
  const traces = requests.filter((r) => /^\/v0\.[45]\/traces/.test(r.path)).flatMap((r) => r.body || []);
  return traces.map((trace) => {
    const names = new Map(trace.map((s) => [String(s.span_id), s.name]));
    return trace.map((s) => ({
      name: s.name,
      resource: text(s.resource),
      service: s.service,
      type: s.type,
      error: s.error,
      parent: String(s.parent_id) === '0' ? null : names.get(String(s.parent_id)) ?? 'another trace',
      meta: keep(s.meta, DD_META_DROP),
      metrics: keep(s.metrics, DD_METRICS_DROP),
    })).sort(byJson);
  }).sort(byJson);
}

// The server spans among them.
const ddtraceServerSpans = (spans) => spans.flat().filter((s) => s.meta['span.kind'] === 'server');

// ---- OpenTelemetry: OTLP/HTTP JSON, POST /v1/traces ---------------------------
const OTEL_DROP = new Set(['network.peer.port', 'net.peer.port', 'client.port', 'net.host.port', 'server.port']);

function otelValue(v) {
  if (v === undefined || v === null) return v;
  if ('stringValue' in v) return text(v.stringValue);
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return (v.arrayValue.values || []).map(otelValue);
  return v;
}

function otelAttributes(list) {
  const out = {};
  for (const { key, value } of (list || []).slice().sort((a, b) => (a.key < b.key ? -1 : 1))) {
    if (!OTEL_DROP.has(key)) out[key] = otelValue(value);
  }
  return out;
}

function otel(requests) {
  const spans = [];
  for (const r of requests.filter((q) => q.path === '/v1/traces')) {
    for (const rs of (r.body && r.body.resourceSpans) || []) {
      const resource = otelAttributes(rs.resource && rs.resource.attributes);
      for (const ss of rs.scopeSpans || []) {
        for (const s of ss.spans || []) spans.push({ resource, scope: ss.scope, span: s });
      }
    }
  }
  const names = new Map(spans.map(({ span }) => [span.spanId, span.name]));
  return spans.map(({ resource, scope, span }) => ({
    resource,
    scope: `${scope.name}@${scope.version}`,
    name: span.name,
    kind: span.kind,
    status: span.status,
    parent: span.parentSpanId ? names.get(span.parentSpanId) ?? 'another batch' : null,
    attributes: otelAttributes(span.attributes),
    events: (span.events || []).map((e) => ({ name: e.name, attributes: otelAttributes(e.attributes) })),
    links: (span.links || []).length,
  })).sort(byJson);
}

const otelServerSpans = (spans) => spans.filter((s) => s.kind === 2);

// ---- Elastic: intake v2 ndjson, POST /intake/v2/events ----------------------
const EL_DROP = new Set(['id', 'trace_id', 'parent_id', 'transaction_id', 'duration', 'timestamp', 'port']);

// A value with the keys of EL_DROP dropped at every depth, strings
// normalised.
function elasticValue(v) {
  if (Array.isArray(v)) return v.map(elasticValue);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (!EL_DROP.has(k)) out[k] = elasticValue(v[k]);
    return out;
  }
  return text(v);
}

// An error's stack as the user reads it in the APM UI: each frame's
// function and file.
const frames = (stacktrace) => (stacktrace || []).map((f) => `${f.function} (${f.filename}${f.abs_path && f.abs_path.endsWith('app.js') ? `:${f.lineno}` : ''})`);

function elastic(requests) {
  const events = requests.filter((r) => r.path.startsWith('/intake/v2/events')).flatMap((r) => r.body || []);
  const out = [];
  for (const e of events) {
    if (e.metadata) {
      const { service } = e.metadata;
      out.push({ metadata: { service: elasticValue(service) } });
    } else if (e.transaction || e.span) {
      out.push(elasticValue(e));
    } else if (e.error) {
      // The stack is kept apart (errorStacks): onewrite's own frames in it
      // are a known difference (docs/differences.md), not the agent's.
      const { exception, ...rest } = e.error;
      const { stacktrace, ...ex } = exception || {};
      out.push({
        error: elasticValue({
          ...rest,
          exception: ex,
          appFrames: frames((stacktrace || []).filter((f) => f.abs_path && f.abs_path.endsWith('app.js'))),
        }),
      });
    } else {
      out.push({ other: Object.keys(e) });
    }
  }
  return out.sort(byJson);
}

// The stacks of the errors Elastic captured, frame by frame.
function elasticErrorStacks(requests) {
  return requests.filter((r) => r.path.startsWith('/intake/v2/events')).flatMap((r) => r.body || [])
    .filter((e) => e.error).map((e) => frames(e.error.exception && e.error.exception.stacktrace));
}

const elasticServerSpans = (events) => events.filter((e) => e.transaction);

module.exports = {
  bytes,
  spans: { ddtrace, 'ddtrace-appsec': ddtrace, otel, elastic },
  serverSpans: { ddtrace: ddtraceServerSpans, 'ddtrace-appsec': ddtraceServerSpans, otel: otelServerSpans, elastic: elasticServerSpans },
  elasticErrorStacks,
};
