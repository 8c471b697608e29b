/* The lessons' section titles, so an answer that points a learner at a
 * section (explain's, the doctor's) names it as the lesson does ("GPU
 * memory: will it fit?"), not by its id. tests/unit/check_explain.c checks
 * each against lessons/ID/lesson.md, so a renamed section fails there. */
#ifndef LAB_LESSON_TITLES_H
#define LAB_LESSON_TITLES_H

typedef struct lab_lesson_title {
  const char *lesson, *section, *title;
} lab_lesson_title;

extern const lab_lesson_title lab_lesson_titles[];
extern const int lab_lesson_title_count;

/* The title of lesson's section, or NULL when none is known. */
const char *lab_lesson_section_title(const char *lesson, const char *section);

#endif
