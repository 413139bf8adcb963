/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* task_state.h: the bits of task_struct.__state the programs read
 * (include/linux/sched.h): sched.h for thread states, causes.h to tell a
 * wait of the program's from one of the kernel's. */
#ifndef SLEDTRACE_BPF_TASK_STATE_H
#define SLEDTRACE_BPF_TASK_STATE_H

#define TASK_RUNNING 0x0
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_STOPPED_OR_TRACED (0x4 | 0x8)

#endif
