/* UTF-8 as RFC 3629 defines it, for text that comes from outside: no
 * overlong forms, no surrogates (U+D800-DFFF), nothing past U+10FFFF.
 * cJSON checks \u escapes but copies raw bytes as they come, so a body is
 * checked here before it is parsed, and a message that quotes what a
 * client sent is repaired after it was cut to length. */
#ifndef LAB_UTF8_H
#define LAB_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one character at s[0..len): returns its length in bytes (1-4)
 * with *cp set, or 0 when the bytes there are not well-formed UTF-8. */
size_t lab_utf8_next(const char *s, size_t len, uint32_t *cp);

/* 1 when s[0..len) is well-formed UTF-8; else 0 with *bad_at (may be NULL)
 * the offset of the first byte that is not. */
int lab_utf8_valid(const char *s, size_t len, size_t *bad_at);

/* Characters that reorder text when displayed (U+061C, U+200E-200F,
 * U+202A-202E, U+2066-2069): in a name, they can make one learner's name
 * look like another's. */
int lab_utf8_is_bidi_control(uint32_t cp);

/* How many of s[0..n) fit in cap bytes without cutting a character in two:
 * at most cap, less the start of a character that would not fit whole. */
size_t lab_utf8_fit(const char *s, size_t n, size_t cap);

/* Replaces every byte that does not start a well-formed character with '?'
 * in place (the length never changes), so the NUL-terminated s is valid
 * UTF-8 afterwards: used on messages that quote input cut at a byte count. */
void lab_utf8_repair(char *s);

#endif
