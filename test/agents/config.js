'use strict';

// The agents of test/agents/agents.js (and of benchmark/instr.js --agent):
// for each, the module to preload and the environment that points it at a
// collector on loopback.  Nothing here loads an agent: it is installed by
// npm ci --prefix test/agents.

const path = require('node:path');

const resolve = (id) => require.resolve(id, { paths: [__dirname] });

// dd-trace's environment: the fake agent's URL, and everything else it
// would send or start (telemetry, remote configuration, profiles, runtime
// metrics, crash tracking, ...) off.
const ddEnv = (url, appsec) => ({
  DD_TRACE_AGENT_URL: url,
  DD_SERVICE: 'agents-test',
  DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false',
  DD_TELEMETRY_ENABLED: 'false',
  DD_REMOTE_CONFIGURATION_ENABLED: 'false',
  DD_PROFILING_ENABLED: 'false',
  DD_RUNTIME_METRICS_ENABLED: 'false',
  DD_CRASHTRACKING_ENABLED: 'false',
  DD_DATA_STREAMS_ENABLED: 'false',
  DD_DYNAMIC_INSTRUMENTATION_ENABLED: 'false',
  DD_TRACE_STATS_COMPUTATION_ENABLED: 'false',
  DD_TRACE_STARTUP_LOGS: 'false',
  DD_TRACE_GIT_METADATA_ENABLED: 'false',
  DD_APPSEC_ENABLED: appsec ? 'true' : 'false',
  // The WAF's budget per request, in microseconds (5 ms by default): a
  // first request on a busy machine went over it and the span said so.
  DD_APPSEC_WAF_TIMEOUT: '10000000',
  DD_IAST_ENABLED: 'false',
  DD_LLMOBS_ENABLED: 'false',
});

// Each agent: the preload its documentation gives (`name`, as a user types
// it; `file()`, where it is here, once installed), the kind of collector it
// talks to (collectors.js; its spans are read by normalise.js's function
// of the agent's name), and the environment that points it there and keeps
// everything else it would send (telemetry, remote configuration, cloud
// metadata, profiles, metrics) from being sent at all.
const AGENTS = {
  ddtrace: {
    name: 'dd-trace/init',
    file: () => resolve('dd-trace/init'),
    collector: 'ddtrace',
    env: (url) => ddEnv(url, false),
  },
  // The same with its application security module on: the WAF runs on
  // every request, and it wraps more of the response for blocking.
  'ddtrace-appsec': {
    name: 'dd-trace/init',
    file: () => resolve('dd-trace/init'),
    collector: 'ddtrace',
    env: (url) => ddEnv(url, true),
  },
  otel: {
    name: './otel.js',
    file: () => path.join(__dirname, 'otel.js'),
    collector: 'otel',
    env: (url) => ({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '60000', // flushed at exit, in one batch
      OTEL_TRACES_SAMPLER: 'always_on',
    }),
  },
  elastic: {
    name: 'elastic-apm-node/start',
    file: () => resolve('elastic-apm-node/start'),
    collector: 'elastic',
    env: (url) => ({
      ELASTIC_APM_SERVER_URL: url,
      ELASTIC_APM_SERVICE_NAME: 'agents-test',
      ELASTIC_APM_CENTRAL_CONFIG: 'false',
      ELASTIC_APM_CLOUD_PROVIDER: 'none',
      ELASTIC_APM_METRICS_INTERVAL: '0s',
      ELASTIC_APM_BREAKDOWN_METRICS: 'false',
      ELASTIC_APM_LOG_LEVEL: 'error',
      ELASTIC_APM_CAPTURE_EXCEPTIONS: 'false',
      ELASTIC_APM_API_REQUEST_TIME: '60s', // one intake request, ended at exit
    }),
  },
};

module.exports = { AGENTS };
