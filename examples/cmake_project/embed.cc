// examples/cmake_project/embed.cc - an application with the digits classifier compiled in (add_fluid_program LIBRARY).
//
// Classifies one 8x8 image (64 grey levels 0..16 on the command line, or a bundled "1" by default)
// through the class fluidc wrote into digits_model.h; libdigits_model.a holds the model and its weights.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "digits_model.h"  // generated: class digits::Classifier (CLASS in CMakeLists.txt)

int main(int argc, char** argv) {
  // The first test image of examples/mlp_classifier (a "1"), as 0..16 grey levels like the sklearn digits.
  const int one[64] = {0, 0, 0,  3, 12, 12, 2, 0, 0, 0, 7, 15, 16, 16, 0, 0, 0, 4, 15, 9, 14, 16, 3, 0,
                       0, 2, 0,  0, 14, 16, 0, 0, 0, 0, 0, 0,  14, 16, 0, 0, 0, 0, 0, 0, 15, 13, 0, 0,
                       0, 0, 0,  0, 16, 14, 1, 0, 0, 0, 0, 3,  16, 13, 2, 0};
  std::vector<float> image(64);
  for (int i = 0; i < 64; ++i)  // the model was trained on pixels scaled to [0, 1]
    image[i] = (argc == 65 ? std::strtof(argv[i + 1], nullptr) : static_cast<float>(one[i])) / 16.0f;
  try {
    digits::Classifier model;  // several instances may live side by side, one per thread
    model.set_input_x(image.data(), {1, 64});
    model.run();
    const float* probs = model.output_save_infer_model_scale_0_tmp_0();  // softmax, float32[1, 10]
    const int best = static_cast<int>(std::max_element(probs, probs + 10) - probs);
    std::printf("predicted digit %d (p=%.3f)\n", best, probs[best]);
  } catch (const fluidc::Error& e) {  // bad shapes or weights: the library throws, never exits
    std::fprintf(stderr, "model error: %s\n", e.what());
    return 1;
  }
  return 0;
}
