/* The WebAssembly entry point. The runtime stays alive after main returns
 * (Emscripten's default), so the client keeps answering callbacks. */
#include "app.h"

int main(void) {
  ui_app_start();
  return 0;
}
