/* Whether the client of the request this thread serves has hung up. A
 * request is served on one CivetWeb thread from start to end, so serve.c
 * names, as each request begins, how to tell (a look at its socket,
 * conn_gate.h); the rooms below the HTTP edge (the simulation gate, the
 * readers) ask without knowing about connections, so that a request
 * nobody waits for any more does not take a slot or keep running. */
#ifndef SRV_HANGUP_H
#define SRV_HANGUP_H

/* fn(ctx): 1 when the client has gone. NULL: nothing to watch (the CLI). */
void srv_hangup_watch(int (*fn)(const void *ctx), const void *ctx);

/* 1 when this thread's client has hung up; 0 when it has not, or when
 * nothing is watched. One poll(2) of a socket: cheap, but not free. */
int srv_hung_up(void);

#endif
