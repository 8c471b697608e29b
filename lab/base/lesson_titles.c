/* The lessons' section titles (lesson_titles.h), as their "## TITLE {#id}"
 * headings read; the closing sections ("wrap-up") are never pointed at. */
#include "lesson_titles.h"

#include <string.h>

const lab_lesson_title lab_lesson_titles[] = {
    {"01-cuda-intuition", "why-gpu", "Two processors, two jobs"},
    {"01-cuda-intuition", "two-checks", "Your GPU: two checks"},
    {"01-cuda-intuition", "placement", "Put the model and every batch field on one device"},
    {"01-cuda-intuition", "copies", "Copies between host and device"},
    {"01-cuda-intuition", "async", "The GPU runs behind your Python"},
    {"01-cuda-intuition", "timing", "Timing GPU work honestly"},
    {"01-cuda-intuition", "train-step", "A whole training step on the GPU"},
    {"01-cuda-intuition", "memory", "GPU memory: will it fit?"},
    {"01-cuda-intuition", "nvidia-smi", "What nvidia-smi shows, and what it does not"},
    {"01-cuda-intuition", "debugging", "First-line debugging"},
    {"01-cuda-intuition", "own-gpu", "On your own GPU"},
    {"02-cuda-toolbox", "devices", "Devices, and moving tensors between them"},
    {"02-cuda-toolbox", "allocator", "The caching allocator"},
    {"02-cuda-toolbox", "streams", "Streams and overlap"},
    {"02-cuda-toolbox", "events", "Events: timing and waiting on the GPU"},
    {"02-cuda-toolbox", "graphs", "CUDA graphs: launch once, replay many times"},
    {"02-cuda-toolbox", "precision", "Precision: FP32, TF32, BF16"},
    {"02-cuda-toolbox", "pinned", "Pinned memory and the data loader"},
    {"02-cuda-toolbox", "profiling", "Profiling: where does the step's time go?"},
    {"02-cuda-toolbox", "random", "Random numbers and reproducibility"},
    {"02-cuda-toolbox", "processes", "Processes and CUDA: fork or spawn"},
};
const int lab_lesson_title_count = (int)(sizeof lab_lesson_titles / sizeof lab_lesson_titles[0]);

const char *lab_lesson_section_title(const char *lesson, const char *section) {
  for (int i = 0; lesson && section && i < lab_lesson_title_count; i++)
    if (!strcmp(lab_lesson_titles[i].lesson, lesson) && !strcmp(lab_lesson_titles[i].section, section))
      return lab_lesson_titles[i].title;
  return NULL;
}
