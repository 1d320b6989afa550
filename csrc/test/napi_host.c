/*
 * napi_host.c - a stand-in for Node that loads a built onewrite.node and
 * runs it, where no Node of the binary's kind can run here (musl: there is
 * no musl Node on the registries this project reaches).
 *
 *   napi_host <path/to/onewrite.node>
 *
 * It provides the Node-API functions the addon imports, over a tiny value
 * model (strings as UTF-16, one Int32Array, functions), loads the addon
 * with dlopen(RTLD_NOW) so that every symbol it needs from the C library
 * is bound at once, runs its module init, checks the exports lib/native.js
 * needs, attaches the shared memory and renders heads through the addon's
 * own head() as lib/head.js asks for them: a short text (read as UTF-16),
 * a long one (read as bytes), and one it must decline (a code unit >=
 * 0x80).  Then it runs the cleanup hook, as Node does when the environment
 * ends.  Any difference: a message and exit status 1.
 *
 * The slot numbers below are csrc/binding.c's (and lib/slots.js'); were
 * they to drift, the heads would not match and this would fail.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <node_api.h>

enum { S_STATE = 0, S_STATUS, S_NPARTS, S_TEXT_LEN, S_LINE_MODE, S_BODY_KIND, S_FRAME,
       S_WANT_ROLES, S_RESULT };
enum { VALIDATE = 1 << 0, CHUNKED_DEFAULT = 1 << 3, HAS_BODY = 1 << 4 };
enum { RESULT_OK = 0, RESULT_NON_ASCII = 1 };
#define LENGTHS_AT (128 + 1024)

typedef enum { V_UNDEFINED, V_BOOLEAN, V_NUMBER, V_STRING, V_OBJECT, V_INT32_ARRAY, V_FUNCTION } kind;

#define MAX_PROPS 16
struct napi_value__ {
  kind k;
  int boolean;
  int32_t number;
  char16_t *units; /* V_STRING: UTF-16 code units */
  size_t nunits;
  void *data;      /* V_INT32_ARRAY: the memory, its length in elements */
  size_t length;
  napi_callback cb; /* V_FUNCTION */
  void *cb_data;
  const char *names[MAX_PROPS]; /* V_OBJECT: properties */
  napi_value values[MAX_PROPS];
  size_t nprops;
};
struct napi_env__ { int pending; void (*hook)(void *); void *hook_arg; };
struct napi_ref__ { napi_value v; };
struct napi_callback_info__ { napi_value *argv; size_t argc; void *data; };

static struct napi_value__ pool[64];
static size_t used;
static int failures;

static napi_value make(kind k) {
  if (used == sizeof pool / sizeof pool[0]) {
    fprintf(stderr, "napi_host: out of values\n");
    exit(2);
  }
  napi_value v = &pool[used++];
  memset(v, 0, sizeof *v);
  v->k = k;
  return v;
}

static napi_value string_of(const char *ascii) {
  napi_value v = make(V_STRING);
  v->nunits = strlen(ascii);
  v->units = calloc(v->nunits + 1, sizeof *v->units);
  if (v->units == NULL) exit(2);
  for (size_t i = 0; i < v->nunits; i++) v->units[i] = (unsigned char)ascii[i];
  return v;
}

/* ---- the Node-API functions the addon imports ---------------------------- */

napi_status napi_get_undefined(napi_env env, napi_value *result) {
  (void)env;
  *result = make(V_UNDEFINED);
  return napi_ok;
}

napi_status napi_get_boolean(napi_env env, bool value, napi_value *result) {
  (void)env;
  *result = make(V_BOOLEAN);
  (*result)->boolean = value;
  return napi_ok;
}

napi_status napi_create_int32(napi_env env, int32_t value, napi_value *result) {
  (void)env;
  *result = make(V_NUMBER);
  (*result)->number = value;
  return napi_ok;
}

napi_status napi_create_string_latin1(napi_env env, const char *str, size_t length,
                                      napi_value *result) {
  (void)env;
  napi_value v = make(V_STRING);
  v->nunits = length;
  v->units = calloc(length + 1, sizeof *v->units);
  if (v->units == NULL) return napi_generic_failure;
  for (size_t i = 0; i < length; i++) v->units[i] = (unsigned char)str[i];
  *result = v;
  return napi_ok;
}

/* Node's semantics: the length without a buffer; else at most bufsize - 1
 * units and a terminator, the count copied in result. */
napi_status napi_get_value_string_utf16(napi_env env, napi_value value, char16_t *buf,
                                        size_t bufsize, size_t *result) {
  (void)env;
  if (value->k != V_STRING) return napi_string_expected;
  if (buf == NULL) {
    *result = value->nunits;
    return napi_ok;
  }
  size_t n = bufsize == 0 ? 0 : value->nunits < bufsize - 1 ? value->nunits : bufsize - 1;
  memcpy(buf, value->units, n * sizeof *buf);
  if (bufsize > 0) buf[n] = 0;
  if (result != NULL) *result = n;
  return napi_ok;
}

static size_t utf8_length(napi_value v) {
  size_t n = 0;
  for (size_t i = 0; i < v->nunits; i++) n += v->units[i] < 0x80 ? 1 : v->units[i] < 0x800 ? 2 : 3;
  return n;
}

napi_status napi_get_value_string_utf8(napi_env env, napi_value value, char *buf, size_t bufsize,
                                       size_t *result) {
  (void)env;
  (void)bufsize;
  if (value->k != V_STRING) return napi_string_expected;
  if (buf != NULL) return napi_generic_failure; /* the addon only asks for the length */
  *result = utf8_length(value);
  return napi_ok;
}

napi_status napi_get_value_string_latin1(napi_env env, napi_value value, char *buf,
                                         size_t bufsize, size_t *result) {
  (void)env;
  if (value->k != V_STRING) return napi_string_expected;
  if (buf == NULL) {
    *result = value->nunits;
    return napi_ok;
  }
  size_t n = bufsize == 0 ? 0 : value->nunits < bufsize - 1 ? value->nunits : bufsize - 1;
  for (size_t i = 0; i < n; i++) buf[i] = (char)value->units[i];
  if (bufsize > 0) buf[n] = 0;
  if (result != NULL) *result = n;
  return napi_ok;
}

napi_status napi_get_typedarray_info(napi_env env, napi_value typedarray, napi_typedarray_type *type,
                                     size_t *length, void **data, napi_value *arraybuffer,
                                     size_t *byte_offset) {
  (void)env;
  if (typedarray->k != V_INT32_ARRAY) return napi_invalid_arg;
  if (type != NULL) *type = napi_int32_array;
  if (length != NULL) *length = typedarray->length;
  if (data != NULL) *data = typedarray->data;
  if (arraybuffer != NULL) *arraybuffer = make(V_OBJECT); /* a SharedArrayBuffer */
  if (byte_offset != NULL) *byte_offset = 0;
  return napi_ok;
}

napi_status napi_is_arraybuffer(napi_env env, napi_value value, bool *result) {
  (void)env;
  (void)value;
  *result = false; /* the memory lib/native.js makes is a SharedArrayBuffer */
  return napi_ok;
}

napi_status napi_get_cb_info(napi_env env, napi_callback_info cbinfo, size_t *argc,
                             napi_value *argv, napi_value *this_arg, void **data) {
  (void)env;
  for (size_t i = 0; i < *argc; i++) argv[i] = i < cbinfo->argc ? cbinfo->argv[i] : make(V_UNDEFINED);
  *argc = cbinfo->argc;
  if (this_arg != NULL) *this_arg = make(V_UNDEFINED);
  if (data != NULL) *data = cbinfo->data;
  return napi_ok;
}

napi_status napi_define_properties(napi_env env, napi_value object, size_t property_count,
                                   const napi_property_descriptor *properties) {
  (void)env;
  for (size_t i = 0; i < property_count; i++) {
    if (object->nprops == MAX_PROPS || properties[i].utf8name == NULL) return napi_invalid_arg;
    napi_value v = properties[i].value;
    if (properties[i].method != NULL) {
      v = make(V_FUNCTION);
      v->cb = properties[i].method;
      v->cb_data = properties[i].data;
    }
    object->names[object->nprops] = properties[i].utf8name;
    object->values[object->nprops++] = v;
  }
  return napi_ok;
}

napi_status napi_create_reference(napi_env env, napi_value value, uint32_t initial_refcount,
                                  napi_ref *result) {
  (void)env;
  (void)initial_refcount;
  *result = malloc(sizeof **result);
  if (*result == NULL) return napi_generic_failure;
  (*result)->v = value;
  return napi_ok;
}

napi_status napi_delete_reference(napi_env env, napi_ref ref) {
  (void)env;
  free(ref);
  return napi_ok;
}

napi_status napi_add_env_cleanup_hook(napi_env env, napi_cleanup_hook fun, void *arg) {
  env->hook = fun;
  env->hook_arg = arg;
  return napi_ok;
}

napi_status napi_throw_error(napi_env env, const char *code, const char *msg) {
  (void)code;
  fprintf(stderr, "napi_host: the addon threw: %s\n", msg);
  env->pending = 1;
  return napi_ok;
}

napi_status napi_is_exception_pending(napi_env env, bool *result) {
  *result = env->pending != 0;
  return napi_ok;
}

napi_status napi_get_and_clear_last_exception(napi_env env, napi_value *result) {
  env->pending = 0;
  *result = make(V_UNDEFINED);
  return napi_ok;
}

/* ---- the run ------------------------------------------------------------- */

static napi_value property(napi_value object, const char *name) {
  for (size_t i = 0; i < object->nprops; i++)
    if (strcmp(object->names[i], name) == 0) return object->values[i];
  return NULL;
}

static napi_value call(napi_env env, napi_value fn, napi_value arg) {
  struct napi_callback_info__ info = { &arg, 1, fn->cb_data };
  return fn->cb(env, &info);
}

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) failures++;
}

/* A head as lib/head.js asks for one: the reason phrase and the pairs as
 * one text, their lengths in shared memory. */
static napi_value render(napi_env env, napi_value head, int32_t *ints, const char **parts,
                         size_t nparts, char16_t replace_at_0) {
  int32_t *lens = (int32_t *)(void *)((char *)ints + LENGTHS_AT);
  size_t total = 0;
  for (size_t i = 0; i < nparts; i++) total += strlen(parts[i]);
  char *text = calloc(total + 1, 1);
  if (text == NULL) exit(2);
  for (size_t i = 0, at = 0; i < nparts; i++) {
    size_t n = strlen(parts[i]);
    memcpy(text + at, parts[i], n);
    at += n;
    lens[i] = (int32_t)n;
  }
  napi_value s = string_of(text);
  free(text);
  if (replace_at_0) s->units[0] = replace_at_0;
  ints[S_STATE] = VALIDATE | HAS_BODY | CHUNKED_DEFAULT;
  ints[S_STATUS] = 200;
  ints[S_NPARTS] = (int32_t)nparts;
  ints[S_TEXT_LEN] = (int32_t)total;
  ints[S_LINE_MODE] = 1;
  ints[S_BODY_KIND] = 0;
  ints[S_WANT_ROLES] = 0;
  return call(env, head, s);
}

static int is_text(napi_value v, const char *want) {
  if (v == NULL || v->k != V_STRING || v->nunits != strlen(want)) return 0;
  for (size_t i = 0; i < v->nunits; i++)
    if (v->units[i] != (unsigned char)want[i]) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: napi_host <onewrite.node>\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "napi_host: dlopen: %s\n", dlerror());
    return 1;
  }
  check(1, "dlopen(RTLD_NOW): every symbol bound");
  napi_value (*init)(napi_env, napi_value);
  *(void **)(&init) = dlsym(lib, "napi_register_module_v1");
  check(init != NULL, "exports napi_register_module_v1");
  if (init == NULL) return 1;

  struct napi_env__ env = { 0, NULL, NULL };
  napi_value exports = make(V_OBJECT);
  check(init(&env, exports) == exports && !env.pending, "module init returns its exports");

  const char *methods[] = { "attach", "head", "message", "join", "chunk", "setDate", "setKeepAlive" };
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
    napi_value m = property(exports, methods[i]);
    char what[64];
    snprintf(what, sizeof what, "exports %s()", methods[i]);
    check(m != NULL && m->k == V_FUNCTION, what);
  }
  napi_value bytes = property(exports, "sharedBytes");
  check(bytes != NULL && bytes->k == V_NUMBER && bytes->number > LENGTHS_AT, "exports sharedBytes");
  if (failures > 0) return 1;

  int32_t *memory = calloc((size_t)bytes->number / 4 + 2, 4);
  if (memory == NULL) return 2;
  napi_value view = make(V_INT32_ARRAY);
  view->data = memory;
  view->length = (size_t)bytes->number / 4;
  napi_value attached = call(&env, property(exports, "attach"), view);
  check(attached != NULL && attached->k == V_BOOLEAN && attached->boolean, "attach(shared memory)");

  napi_value head = property(exports, "head");
  const char *parts[] = { "OK", "Content-Type", "text/plain", "Content-Length", "42",
                          "Connection", "close" };
  check(is_text(render(&env, head, memory, parts, 7, 0),
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 42\r\n"
                "Connection: close\r\n\r\n") && memory[S_RESULT] == RESULT_OK,
        "head() renders a short head (read as UTF-16)");

  char value[701];
  memset(value, 'v', 700);
  value[700] = 0;
  const char *long_parts[] = { "Created", "X-Long", value };
  char want[800];
  snprintf(want, sizeof want, "HTTP/1.1 200 Created\r\nX-Long: %s\r\nConnection: close\r\n"
           "Transfer-Encoding: chunked\r\n\r\n",
           value);
  check(is_text(render(&env, head, memory, long_parts, 3, 0), want) && memory[S_RESULT] == RESULT_OK,
        "head() renders a long head (read as bytes)");

  napi_value declined = render(&env, head, memory, parts, 7, 0xe9);
  check(declined != NULL && declined->k == V_UNDEFINED && memory[S_RESULT] == RESULT_NON_ASCII &&
            !env.pending,
        "head() declines a code unit >= 0x80, throwing nothing");

  check(env.hook != NULL, "a cleanup hook is registered");
  if (env.hook != NULL) env.hook(env.hook_arg);
  check(1, "the cleanup hook ran");
  free(memory);
  for (size_t i = 0; i < used; i++) free(pool[i].units);
  printf("%s\n", failures == 0 ? "napi_host: passed" : "napi_host: FAILED");
  return failures == 0 ? 0 : 1;
}
