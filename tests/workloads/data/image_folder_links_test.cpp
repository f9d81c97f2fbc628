// What the walk of an ImageFolder tree reaches through links (image_folder_links), which
// cli/output_rules.cpp holds every output and $TMPDIR to: folder links to outside the tree
// resolved (a class folder, one under it), images linked in by (device, inode), links that
// stay inside left out, and a link loop answered, not walked forever.
#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "support/image_files.h"
#include "workloads/data/image_folder.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::encode_jpeg;
using test_support::write_bytes;

class ImageFolderLinksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpubench-imagelinks-XXXXXX";
    base_ = mkdtemp(pattern);
    root_ = base_ + "/tree";
    for (const std::string folder : {"/tree/n01", "/x", "/y", "/z"}) fs::create_directories(base_ + folder);
    for (const std::string image : {"/tree/n01/a.jpg", "/x/1.jpg", "/y/2.jpg", "/z/3.jpg"})
      write_bytes(base_ + image, encode_jpeg(8, 8, 10));
    fs::create_directory_symlink(base_ + "/x", root_ + "/n02");              // a class folder
    fs::create_directory_symlink("../../y", root_ + "/n01/more");            // a folder under one, relative
    fs::create_symlink(base_ + "/z/3.jpg", root_ + "/n01/linked.jpg");       // an image
    fs::create_directory_symlink(root_ + "/n01", root_ + "/n03");            // stays inside the tree
  }
  void TearDown() override { fs::remove_all(base_); }

  std::string base_, root_;
};

TEST_F(ImageFolderLinksTest, FoldersAndImagesReachedThroughLinksOutsideTheTreeAreListedResolved) {
  const ImageTreeLinks links = image_folder_links(root_);
  const std::string real_base = fs::canonical(base_).string();
  ASSERT_EQ(links.folders.size(), 2u);
  EXPECT_EQ(links.folders[0].walked, root_ + "/n01/more");
  EXPECT_EQ(links.folders[0].resolved, real_base + "/y");
  EXPECT_EQ(links.folders[1].walked, root_ + "/n02");
  EXPECT_EQ(links.folders[1].resolved, real_base + "/x");
  struct stat info {};
  ASSERT_EQ(::stat((base_ + "/z/3.jpg").c_str(), &info), 0);
  ASSERT_EQ(links.images.count({info.st_dev, info.st_ino}), 1u);
  // n03 (-> n01) also reaches linked.jpg and more/: the same image, the same folder, once.
  EXPECT_EQ(links.images.at({info.st_dev, info.st_ino}), root_ + "/n01/linked.jpg");
  // And the reader walks the same tree: n01 (a, linked, more/2), n02 (1), n03 (as n01).
  EXPECT_EQ(open_image_folder(root_, {100, 7, 1000, 224, false})->size(), 7u);
}

TEST_F(ImageFolderLinksTest, ALinkLoopIsAnsweredWithTheLinksMetAndTheReaderRefusesTheTree) {
  fs::create_directory_symlink(base_ + "/x", base_ + "/x/again");  // /x/again/again/... through n02
  const ImageTreeLinks links = image_folder_links(root_);
  EXPECT_EQ(links.folders.size(), 2u) << "x once, however often the loop passes it";
  try {
    open_image_folder(root_, {100, 7, 1000, 224, false});
    FAIL() << "a loop is refused";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("has a class folder that cannot be read"), std::string::npos) << error.what();
  }
}

TEST(ImageFolderLinks, ATreeWithoutLinksOrNoTreeAtAllHasNone) {
  EXPECT_TRUE(image_folder_links("/nonexistent/gpubench").folders.empty());
  char pattern[] = "/tmp/gpubench-imagelinks-XXXXXX";
  const std::string root = mkdtemp(pattern);
  fs::create_directories(root + "/n01/deep");
  write_bytes(root + "/n01/deep/a.png", test_support::encode_png(4, 4, 0));
  const ImageTreeLinks links = image_folder_links(root);
  EXPECT_TRUE(links.folders.empty());
  EXPECT_TRUE(links.images.empty());
  fs::remove_all(root);
}

}  // namespace
}  // namespace gpubench
