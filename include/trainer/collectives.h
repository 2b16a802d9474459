/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, collectives section (trainer_comm_*). Included by trainer.h; the
 * conventions stated at the top of trainer.h apply.
 */
#ifndef TRAINER_COLLECTIVES_H
#define TRAINER_COLLECTIVES_H

#include "trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* TRAINER_COLLECTIVES_H */
