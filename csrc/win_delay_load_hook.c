/*
 * win_delay_load_hook.c - Windows only: the addon's Node-API imports are
 * delay-loaded from "node.exe" (scripts/binaries.sh links them so), and
 * this hook answers the loader's request for that DLL with the program
 * that is running, whatever its file is called: a node.exe renamed or
 * copied (nvs, volta, a service wrapper's node20.exe) exports the same
 * functions.  node-gyp builds addons with the same kind of hook.
 */
#include <windows.h>
#include <delayimp.h>
#include <string.h>

/* The loader takes the module handle where a hook returns a FARPROC; the
 * copy says so without converting an object pointer to a function pointer,
 * which ISO C leaves undefined (both are 64 bits on win32-x64). */
static FARPROC WINAPI load_running_program(unsigned event, PDelayLoadInfo info) {
  FARPROC answer = NULL;
  if (event == dliNotePreLoadLibrary && lstrcmpiA(info->szDll, "node.exe") == 0) {
    HMODULE self = GetModuleHandleA(NULL);
    _Static_assert(sizeof self == sizeof answer, "a module handle fits a FARPROC");
    memcpy(&answer, &self, sizeof answer);
  }
  return answer;
}

PfnDliHook __pfnDliNotifyHook2 = load_running_program;
