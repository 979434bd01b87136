// transpilers/conv_epilogue.h - inference: a per-channel bias add and an activation after a convolution move into it.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// For each block-0 op that is linear per output channel and has an
/// epilogue (OpDef::channel_linear with ChannelLinear::epilogue: conv2d,
/// depthwise_conv2d, conv3d), in this order:
///  (a) an add (OpDef::bias_add: elementwise_add) whose X is the op's output
///      and whose Y is a parameter, or made from parameters alone by one op
///      (Paddle's reshape2 of nn.Conv2D's bias; moved before the convolution
///      when it comes after), with one value per output channel,
///      broadcast along the channel axis by Paddle's axis rule ([C] at
///      axis 1 for NCHW, [C] at axis -1 for NHWC, [1, C, 1, 1], ...):
///      Y becomes the op's Bias. An op that has a Bias already (a folded
///      batch_norm's) gets Bias + Y from an elementwise_add inserted before it
///      on load-time values, which the fold-constants plan runs once per
///      parameter load; only there do the numbers change (one rounding).
///  (b) then a unary activation whose op table entry says how a convolution
///      applies it (OpDef::conv_epilogue: relu, relu6, leaky_relu, sigmoid,
///      tanh, swish, silu, hard_swish, hard_sigmoid, elu): its type and
///      parameters become the op's fuse_activation, fuse_alpha, fuse_beta.
/// The op then writes the moved op's output, and the moved op goes; the
/// kernels apply the same additions and functions in the same order, so the
/// results are bit-identical. Skips an output that is fetched, in `keep`,
/// read by a sub-block, read by another op or written twice, a bias that is
/// not a parameter or not per channel, an op that already has an activation
/// or binds ResidualData. Returns the number of ops moved.
int fuse_conv_epilogue(pb::ProgramDesc& prog, const std::vector<std::string>& keep);

}  // namespace fluidc
