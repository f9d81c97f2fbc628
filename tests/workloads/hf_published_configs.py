"""Published config.json files (huggingface.co/<repo>/blob/main/config.json), written down from the hub files as
published (transformers-4.x spelling: top-level rope_theta / rope_scaling, torch_dtype); no network is used.
hf_family_reference.py --count-params [OUTDIR] counts HF's parameters for each on the meta device.

Left out of the files as published: Phi-3's and DeepSeek-V3's "auto_map" and "_name_or_path" (auto_map names remote
code, which AutoModelForCausalLM.from_config would then ask to trust; transformers has both built in); gpt-oss-20b's
and DeepSeek-V3's "quantization_config" (MXFP4 experts, FP8 blocks: the hub weights are quantized, which gpubench
refuses to train; the shapes and HF's count of the unquantized model are the same).
EXPECTED: sum over model.parameters() (a tied head counted once), worked out by hand from the shapes
(cross-checked against the model cards: Qwen3-0.6B 0.6B / 0.44B non-embedding, Gemma-3-1B 1.0B, Phi-3-mini
3.8B, OLMo-2-1B 1.5B, SmolLM3-3B 3.1B, Granite-3.1-2B 2.5B, Pythia-160M 162M).
"""

SMOLLM3_LAYERS = 36
GPT_OSS_LAYERS = 24

PUBLISHED = {
    "Qwen/Qwen3-0.6B": {
        "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024,
        "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 40960,
        "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000,
        "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936},
    "google/gemma-3-1b-pt": {
        "architectures": ["Gemma3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": None, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
        "final_logit_softcapping": None, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 1152, "initializer_range": 0.02, "intermediate_size": 6912, "max_position_embeddings": 32768,
        "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1,
        "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
        "rope_scaling": None, "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
        "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0", "use_cache": True, "vocab_size": 262144},
    "microsoft/Phi-3-mini-4k-instruct": {
        "architectures": ["Phi3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 1,
        "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu", "hidden_size": 3072,
        "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096, "model_type": "phi3",
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
        "original_max_position_embeddings": 4096, "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
        "rope_scaling": None, "rope_theta": 10000.0, "sliding_window": 2047, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16", "transformers_version": "4.40.2", "use_cache": True, "vocab_size": 32064},
    "allenai/OLMo-2-0425-1B": {
        "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": None, "eos_token_id": 100257, "hidden_act": "silu", "hidden_size": 2048,
        "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096, "model_type": "olmo2",
        "num_attention_heads": 16, "num_hidden_layers": 16, "num_key_value_heads": 16, "pad_token_id": 100277,
        "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 500000, "tie_word_embeddings": False,
        "torch_dtype": "float32", "transformers_version": "4.51.3", "use_cache": True, "vocab_size": 100352},
    "HuggingFaceTB/SmolLM3-3B": {
        "architectures": ["SmolLM3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": None, "eos_token_id": 128012, "hidden_act": "silu", "hidden_size": 2048,
        "initializer_range": 0.02, "intermediate_size": 11008,
        "layer_types": ["full_attention"] * SMOLLM3_LAYERS, "max_position_embeddings": 65536,
        "max_window_layers": 28, "mlp_bias": False, "model_type": "smollm3", "no_rope_layer_interval": 4,
        "no_rope_layers": [int((i + 1) % 4 != 0) for i in range(SMOLLM3_LAYERS)], "num_attention_heads": 16,
        "num_hidden_layers": SMOLLM3_LAYERS, "num_key_value_heads": 4, "pad_token_id": 128004, "pretraining_tp": 2,
        "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 5000000.0, "sliding_window": None,
        "torch_dtype": "bfloat16", "transformers_version": "4.54.0.dev0", "use_cache": False,
        "use_sliding_window": False, "vocab_size": 128256},
    "ibm-granite/granite-3.1-2b-base": {
        "architectures": ["GraniteForCausalLM"], "attention_bias": False, "attention_dropout": 0.1,
        "attention_multiplier": 0.015625, "bos_token_id": 0, "embedding_multiplier": 12.0, "eos_token_id": 0,
        "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192,
        "logits_scaling": 8.0, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "granite",
        "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "pad_token_id": 0,
        "residual_multiplier": 0.22, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 5000000.0,
        "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.47.0", "use_cache": True,
        "vocab_size": 49155},
    "EleutherAI/pythia-160m": {
        "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
        "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
        "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 12,
        "num_hidden_layers": 12, "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": False,
        "torch_dtype": "float16", "transformers_version": "4.24.0", "use_cache": True,
        "use_parallel_residual": True, "vocab_size": 50304},
    "openai/gpt-oss-20b": {
        "architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
        "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880,
        "initial_context_length": 4096, "initializer_range": 0.02, "intermediate_size": 2880,
        "layer_types": ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(GPT_OSS_LAYERS)],
        "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
        "num_experts_per_tok": 4, "num_hidden_layers": GPT_OSS_LAYERS, "num_key_value_heads": 8,
        "num_local_experts": 32, "output_router_logits": False, "pad_token_id": 199999, "rms_norm_eps": 1e-05,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
                         "rope_type": "yarn", "truncate": False},
        "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
        "tie_word_embeddings": False, "transformers_version": "4.55.0.dev0", "use_cache": True, "vocab_size": 201088},
    "deepseek-ai/DeepSeek-V3": {
        "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3,
        "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432,
        "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v3",
        "moe_intermediate_size": 2048, "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256,
        "n_shared_experts": 1, "norm_topk_prob": True, "num_attention_heads": 128, "num_experts_per_tok": 8,
        "num_hidden_layers": 61, "num_key_value_heads": 128, "num_nextn_predict_layers": 1, "pretraining_tp": 1,
        "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096, "type": "yarn"},
        "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "seq_aux": True,
        "tie_word_embeddings": False, "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
        "transformers_version": "4.33.1", "use_cache": True, "v_head_dim": 128, "vocab_size": 129280},
}

# By hand: embedding V*h (+ V*h untied head) + layers * per-layer + final norm.
EXPECTED = {
    # 151936*1024 + 28*(1024*2048*2 + 1024*1024*2 + 2*128 + 3*1024*3072 + 2*1024) + 1024
    "Qwen/Qwen3-0.6B": 596_049_920,
    # 262144*1152 + 26*(1152*1024*2 + 1152*256*2 + 2*256 + 3*1152*6912 + 4*1152) + 1152
    "google/gemma-3-1b-pt": 999_885_952,
    # 2*32064*3072 + 32*(3072*9216 + 3072*3072 + 3072*16384 + 8192*3072 + 2*3072) + 3072
    "microsoft/Phi-3-mini-4k-instruct": 3_821_079_552,
    # 2*100352*2048 + 16*(4*2048*2048 + 2*2048 + 3*2048*8192 + 2*2048) + 2048
    "allenai/OLMo-2-0425-1B": 1_484_916_736,
    # 128256*2048 + 36*(2*2048*2048 + 2*2048*512 + 3*2048*11008 + 2*2048) + 2048
    "HuggingFaceTB/SmolLM3-3B": 3_075_098_624,
    # 49155*2048 + 40*(2*2048*2048 + 2*2048*512 + 3*2048*8192 + 2*2048) + 2048
    "ibm-granite/granite-3.1-2b-base": 2_533_531_648,
    # 2*50304*768 + 12*(768*2304 + 2304 + 768*768 + 768 + 2*768*3072 + 3072 + 768 + 4*768) + 2*768
    "EleutherAI/pythia-160m": 162_322_944,
    # 2*201088*2880 + 24*(2*2880 + 2880*4096+4096 + 2*(2880*512+512) + 4096*2880+2880 + 64 sinks + 32*2880+32 router
    #   + 32*(2880*5760+5760 + 2880*2880+2880) experts with biases) + 2880  (model card: 21B total, 3.6B active)
    "openai/gpt-oss-20b": 20_914_757_184,
    # 2*129280*7168 + 61*(2*7168 + 7168*1536+1536 + 1536*128*192 + 7168*576+512 + 512*128*256 + 128*128*7168)
    #   + 3*3*7168*18432 dense + 58*(256*7168 + 256*3*7168*2048 + 3*7168*2048) + 7168
    #   (671B total, 37B active; the hub's 685B adds the multi-token-prediction layer HF does not build)
    "deepseek-ai/DeepSeek-V3": 671_026_404_352,
}
