/* The precision experiment's training run (precision_train.c): softmax
 * regression trained in FP32, BF16 and FP16 as mixed precision does it,
 * with or without loss scaling. A header of its own so that the run does
 * not include precision.h, whose experiment calls it. */
#ifndef LAB_PRECISION_TRAIN_H
#define LAB_PRECISION_TRAIN_H

/* The training run: softmax regression on a fixed, well separated data set. */
#define LAB_PREC_TRAIN_MAX_STEPS 1000
#define LAB_PREC_TRAIN_BATCH 256 /* the mean loss divides every gradient by it */
#define LAB_PREC_TRAIN_FEATURES 8
#define LAB_PREC_TRAIN_CLASSES 8
#define LAB_PREC_TRAIN_LR 1.0f
/* Dynamic loss scaling as torch.amp.GradScaler does it by default. */
#define LAB_PREC_SCALE_INIT 65536.0
#define LAB_PREC_SCALE_GROWTH_INTERVAL 2000

typedef enum lab_train_mode { LAB_TRAIN_FP32, LAB_TRAIN_BF16, LAB_TRAIN_FP16, LAB_TRAIN_MODES } lab_train_mode;
extern const char *const lab_train_mode_ids[LAB_TRAIN_MODES]; /* "fp32", "bf16", "fp16" */

typedef struct lab_prec_train {
  int steps, loss_scaling;
  float loss[LAB_TRAIN_MODES][LAB_PREC_TRAIN_MAX_STEPS];
  /* Gradient values (logit gradients and weight gradients) that are not zero
   * in fp32 but became zero when stored in the mode's format, summed over
   * the run, and how many values were counted. */
  double flushed[LAB_TRAIN_MODES], counted[LAB_TRAIN_MODES];
  float flushed_pct_step[LAB_TRAIN_MODES][LAB_PREC_TRAIN_MAX_STEPS];
  int skipped[LAB_TRAIN_MODES];   /* steps skipped on an overflow (scaling on) */
  double final_scale[LAB_TRAIN_MODES];
  double accuracy[LAB_TRAIN_MODES];
  double cpu_ms;                  /* real CPU time the run took */
} lab_prec_train;

/* The training run of every mode (real arithmetic; deterministic). */
void lab_precision_train(int steps, int loss_scaling, lab_prec_train *t);

#endif
