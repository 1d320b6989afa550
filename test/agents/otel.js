'use strict';

// The OpenTelemetry "agent", as its documentation has users write it: a
// file preloaded with `node -r ./otel.js app.js` that registers a tracer
// provider exporting over OTLP/HTTP (JSON) and the http and express
// instrumentations.  The exporter's endpoint comes from
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (a fake collector on loopback, from
// test/agents/agents.js).  Spans are batched and flushed when the process
// runs out of work ('beforeExit'), as the provider's shutdown() does.

const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'agents-test' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
provider.register();
registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()] });
process.once('beforeExit', () => provider.shutdown());
